"""Write generated SAMSum-shaped dialogue-summary data in FlagPerf's llama2_7b_finetune layout.

    python3 prepare_data.py --output DIR [--train 2000] [--val 200] [--seed 1234]

DIR/samsum_dataset/{train,val,test}.json: JSON lists of {"id", "dialogue", "summary"}, the
layout of samsum's corpus.7z, which FlagPerf's case reads (``textlm/samsum.py``). The
dialogues are generated from one template with seeded names, items and days: the CI's data.
For a real run unpack samsum's corpus.7z into DIR/samsum_dataset instead. Needs only numpy,
the standard library and ``chipperf_runtime/training/textlm``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

REPO = str(Path(__file__).resolve().parents[4])
if REPO not in sys.path:
    sys.path.insert(1, REPO)  # chipperf_runtime's textlm (run as a script on the host, not launched)
from chipperf_runtime.training.textlm import samsum  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--output", type=Path, required=True)
    parser.add_argument("--train", type=int, default=2000, help="train samples")
    parser.add_argument("--val", type=int, default=200, help="validation (and test) samples")
    parser.add_argument("--seed", type=int, default=1234)
    args = parser.parse_args(argv)
    samsum.write_generated(args.output, args.train, args.val, args.seed)
    print(f"{args.output / samsum.FOLDER}: {args.train} train, {args.val} val samples")
    return 0


if __name__ == "__main__":
    sys.exit(main())
