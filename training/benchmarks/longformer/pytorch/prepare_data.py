"""Build the longformer case's CI data in FlagPerf's longformer layout.

    python3 prepare_data.py --output DIR [--train-rows 4096] [--eval-rows 256] [--seq-len 32] [--seed 0]

Writes ``DIR/dataset/train_dataset.npz`` and ``DIR/dataset/eval_dataset.npz`` holding
``input_ids``, ``attention_mask`` and ``special_tokens_mask`` [rows, seq_len] as FlagPerf's
``create_train_eval_data.py`` saves them (rows of grouped text, RoBERTa's ``<s>`` 0 ... ``</s>``
2 around each document, special tokens marked), and ``DIR/meta.json``. The tokens are not
text: ``textlm.generated.topic_stream`` (runs of 64 tokens about one id) over the ids 4-67
(RoBERTa's ``<mask>`` is the CI config's mask_token_id 3), with a ``</s> <s>`` document break
every 256 tokens. No tokenizer or model folder is written (FlagPerf's case reads
``model/config.json``; chipperf's presets hold it). Nothing is downloaded. Needs numpy.
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

BOS, EOS = 0, 2
IDS, RUN, DOCUMENT = range(4, 68), 64, 256


def rows(n_rows: int, seq_len: int, rng: np.random.Generator) -> dict[str, np.ndarray]:
    stream = topic_stream(n_rows * seq_len, IDS, RUN, rng)
    special = np.zeros_like(stream)
    stream[DOCUMENT - 1::DOCUMENT], stream[DOCUMENT::DOCUMENT] = EOS, BOS
    special[DOCUMENT - 1::DOCUMENT] = special[DOCUMENT::DOCUMENT] = 1
    stream[0], special[0] = BOS, 1
    shape = (n_rows, seq_len)
    return {"input_ids": stream.reshape(shape), "attention_mask": np.ones(shape, np.int32),
            "special_tokens_mask": special.reshape(shape)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--output", type=Path, required=True)
    parser.add_argument("--train-rows", type=int, default=4096)
    parser.add_argument("--eval-rows", type=int, default=256)
    parser.add_argument("--seq-len", type=int, default=32)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    rng = np.random.default_rng(args.seed)
    (args.output / "dataset").mkdir(parents=True, exist_ok=True)
    for split, count in (("train", args.train_rows), ("eval", args.eval_rows)):
        np.savez(args.output / "dataset" / f"{split}_dataset.npz", **rows(count, args.seq_len, rng))
    meta = {"layout": "FlagPerf longformer",
            "made_by": "training/benchmarks/longformer/pytorch/prepare_data.py",
            "generator": "textlm.generated.topic_stream", "ids": [IDS.start, IDS.stop - 1],
            "run": RUN, "rows": {"train": args.train_rows, "eval": args.eval_rows},
            "seq_len": args.seq_len, "seed": args.seed}
    (args.output / "meta.json").write_text(json.dumps(meta, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
