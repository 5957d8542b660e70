"""Write generated LLaVA data in FlagPerf's llava1.5_13b layout (both stages; llava1.5_7b's).

    python3 prepare_data.py --output DIR [--samples 240] [--image-size 28] [--seed 1234]

DIR/LLaVA-Pretrain/blip_laion_cc_sbu_558k.json + DIR/LLaVA-Pretrain/images/ and
DIR/LLaVA-Finetune/llava_v1_5_mix665k.json + DIR/LLaVA-Finetune/data/: ``--samples``
conversations per stage, each about a JPEG picture of one colour with a grey square in one
corner (the caption and the answers name both). The CI's data; for a real run download
FlagPerf's (README.md). Needs numpy, Pillow and ``chipperf_runtime/training/llmtrain``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

REPO = str(Path(__file__).resolve().parents[4])
if REPO not in sys.path:
    sys.path.insert(1, REPO)  # chipperf_runtime (run as a script on the host, not launched)
from chipperf_runtime.training.llmtrain import llava_data  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--output", type=Path, required=True)
    parser.add_argument("--samples", type=int, default=240, help="conversations per stage")
    parser.add_argument("--image-size", type=int, default=28, help="picture side in pixels")
    parser.add_argument("--seed", type=int, default=1234)
    args = parser.parse_args(argv)
    llava_data.write_generated(args.output, args.samples, args.seed, args.image_size)
    print(f"{args.output}: {args.samples} conversations per stage "
          f"({', '.join(llava_data.STAGES)})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
