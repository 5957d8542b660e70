"""Build the transformer case's CI data in fairseq's binarized layout (FlagPerf's transformer).

    python3 prepare_data.py --output DIR [--train 4096] [--test 64] [--words 40] [--seed 0]

A generated translation task, not language: each source sentence is 3-8 words drawn from
``s0 .. s<N-1>``; its translation is the same sentence with every word replaced by its fixed
partner ``t<k>`` (a random one-to-one map, drawn once). Writes, as fairseq-preprocess does
with ``--joined-dictionary``: ``DIR/dict.en.txt`` and ``DIR/dict.de.txt`` (the same symbols),
``DIR/{train,test}.en-de.{en,de}.{idx,bin}`` (every sentence ending in ``</s>``), and
``DIR/meta.json``. Nothing is downloaded. Needs numpy.
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
from chipperf_runtime.training.textlm import fairseq_data as fs  # noqa: E402


def pairs(count: int, words: int, partner: np.ndarray,
          rng: np.random.Generator) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """Source and target id sentences (ids after the specials: s-words, then t-words)."""
    first = len(fs.SPECIALS)
    sources, targets = [], []
    for _ in range(count):
        chosen = rng.integers(0, words, rng.integers(3, 9))
        sources.append(np.append(first + chosen, fs.EOS))
        targets.append(np.append(first + words + partner[chosen], fs.EOS))
    return sources, targets


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--output", type=Path, required=True)
    parser.add_argument("--train", type=int, default=4096)
    parser.add_argument("--test", type=int, default=64)
    parser.add_argument("--words", type=int, default=40)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    rng = np.random.default_rng(args.seed)
    partner = rng.permutation(args.words)
    symbols = [f"s{i}" for i in range(args.words)] + [f"t{i}" for i in range(args.words)]
    args.output.mkdir(parents=True, exist_ok=True)
    for lang in ("en", "de"):
        fs.write_dictionary(args.output / f"dict.{lang}.txt", symbols)
    for split, count in (("train", args.train), ("test", args.test)):
        sources, targets = pairs(count, args.words, partner, rng)
        fs.write(args.output / f"{split}.en-de.en", sources)
        fs.write(args.output / f"{split}.en-de.de", targets)
    meta = {"layout": "fairseq binarized (FlagPerf transformer)",
            "made_by": "training/benchmarks/transformer/pytorch/prepare_data.py",
            "task": "word-for-word substitution", "words": args.words,
            "pairs": {"train": args.train, "test": args.test}, "seed": args.seed}
    (args.output / "meta.json").write_text(json.dumps(meta, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
