"""Build the bert_hf case's CI data in FlagPerf's bert_hf layout.

    python3 prepare_data.py --output DIR [--train-tokens 131072] [--eval-tokens 16384] [--seed 0]

Writes ``DIR/openwebtext_bert_100M.npy`` (train) and ``DIR/openwebtext_bert_10M.npy`` (eval),
1-D int32 token streams under FlagPerf's file names, and ``DIR/meta.json``. The tokens are
not text: one stream of ``textlm.generated.topic_stream`` (runs of 64 tokens about one id)
over the ids 110-255 (above BERT's specials; [MASK] is 103), cut into train and eval.
Nothing is downloaded; no weights are written (the CI config trains from random weights).
Needs numpy.
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
from chipperf_runtime.training.textlm.generated import topic_stream  # noqa: E402

IDS = range(110, 256)
RUN = 64


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--output", type=Path, required=True)
    parser.add_argument("--train-tokens", type=int, default=131072)
    parser.add_argument("--eval-tokens", type=int, default=16384)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    stream = topic_stream(args.train_tokens + args.eval_tokens, IDS, RUN,
                          np.random.default_rng(args.seed))
    args.output.mkdir(parents=True, exist_ok=True)
    np.save(args.output / "openwebtext_bert_100M.npy", stream[:args.train_tokens])
    np.save(args.output / "openwebtext_bert_10M.npy", stream[args.train_tokens:])
    meta = {"layout": "FlagPerf bert_hf",
            "made_by": "training/benchmarks/bert_hf/pytorch/prepare_data.py",
            "generator": "textlm.generated.topic_stream", "ids": [IDS.start, IDS.stop - 1], "run": RUN,
            "train_tokens": args.train_tokens, "eval_tokens": args.eval_tokens, "seed": args.seed}
    (args.output / "meta.json").write_text(json.dumps(meta, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
