"""Write generated LLaVA data in FlagPerf's layout for llava1.5_7b_continuetrain and the
llava1.5_7b run that writes its checkpoint (both stages' files: one data dir serves both).

    python3 prepare_data.py --output DIR [--samples 240] [--image-size 28] [--seed 1234]

DIR/LLaVA-Pretrain/blip_laion_cc_sbu_558k.json + DIR/LLaVA-Pretrain/images/ (what this case
trains on) and DIR/LLaVA-Finetune/llava_v1_5_mix665k.json + DIR/LLaVA-Finetune/data/:
``--samples`` conversations per stage about JPEG pictures of one colour with a grey square in
one corner (``llmtrain/llava_data.py``). The checkpoint the case continues from is
llava1.5_7b's (its save_checkpoint knob, into DIR/<checkpoint>). For a real run put
LLaVA-Pretrain's json and images there instead (README.md). Needs numpy, Pillow and
``chipperf_runtime/training/llmtrain``.
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
