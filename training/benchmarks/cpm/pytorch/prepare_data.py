"""Build the cpm case's CI data: generated token streams in the causal-LM shard layout.

    python3 prepare_data.py --output DIR [--train-tokens 65536] [--eval-tokens 4096] [--seed 0]

Writes ``DIR/train/shard_0000.npy`` and ``DIR/eval/shard_0000.npy`` (1-D int32 token streams,
``textlm.tokens``' layout) and ``DIR/meta.json``. The tokens are not text: one stream of
``textlm.generated.chain_stream`` (each token its predecessor's fixed successor 80 % of the
time) over the ids 4-255, cut into train and eval. (Not ``topic_stream``: its runs repeat
an id, and an untrained model with tied embeddings, which predicts its input token again,
already scores 0.99 embedding average on them.) Nothing is downloaded. Needs numpy.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

REPO = str(Path(__file__).resolve().parents[4])
if REPO not in sys.path:
    sys.path.insert(1, REPO)  # chipperf_runtime's textlm (run as a script on the host, not launched)
from chipperf_runtime.training.textlm.generated import chain_stream  # noqa: E402

IDS = range(4, 256)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--output", type=Path, required=True)
    parser.add_argument("--train-tokens", type=int, default=65536)
    parser.add_argument("--eval-tokens", type=int, default=4096)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    stream = chain_stream(args.train_tokens + args.eval_tokens, IDS, np.random.default_rng(args.seed))
    for split, part in (("train", stream[:args.train_tokens]), ("eval", stream[args.train_tokens:])):
        (args.output / split).mkdir(parents=True, exist_ok=True)
        np.save(args.output / split / "shard_0000.npy", part)
    meta = {"layout": "causal-LM token shards (textlm.tokens)",
            "made_by": "training/benchmarks/cpm/pytorch/prepare_data.py",
            "generator": "textlm.generated.chain_stream", "ids": [IDS.start, IDS.stop - 1],
            "train_tokens": args.train_tokens, "eval_tokens": args.eval_tokens, "seed": args.seed}
    (args.output / "meta.json").write_text(json.dumps(meta, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
