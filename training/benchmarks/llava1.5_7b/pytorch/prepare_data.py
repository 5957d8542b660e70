"""Write generated LLaVA data in FlagPerf's llava1.5_7b layout (both stages).

    python3 prepare_data.py --output DIR [--samples 240] [--image-size 28] [--seed 1234]

DIR/LLaVA-Pretrain/blip_laion_cc_sbu_558k.json + DIR/LLaVA-Pretrain/images/ and
DIR/LLaVA-Finetune/llava_v1_5_mix665k.json + DIR/LLaVA-Finetune/data/: ``--samples``
conversations per stage, each about a JPEG picture of one colour with a grey square in one
corner (the caption and the answers name both). The CI's data; for a real run download
FlagPerf's (README.md). Needs numpy, Pillow and ``chipperf_runtime/training/llmtrain``.
"""

from __future__ import annotations

import sys
from pathlib import Path

REPO = str(Path(__file__).resolve().parents[4])
if REPO not in sys.path:
    sys.path.insert(1, REPO)  # chipperf_runtime (run as a script on the host, not launched)
from chipperf_runtime.training.llmtrain import llava_data  # noqa: E402

if __name__ == "__main__":
    sys.exit(llava_data.prepare_main(sys.argv[1:], __doc__ or ""))
