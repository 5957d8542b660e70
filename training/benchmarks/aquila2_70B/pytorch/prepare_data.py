"""Build a small, real, offline causal-LM dataset in the layout the aquila2_70B case reads.

    python3 prepare_data.py --output DIR [--source PATH ...] [--eval-every 10]

Byte-level token shards of text already on the machine (or ``--source``): see
``chipperf_runtime/training/textlm/bytelevel.py`` for the text, the tokenizer and the files
written. Nothing is downloaded. Needs only numpy, the standard library and
``chipperf_runtime/training/textlm``.
"""

from __future__ import annotations

import sys
from pathlib import Path

REPO = str(Path(__file__).resolve().parents[4])
if REPO not in sys.path:
    sys.path.insert(1, REPO)  # chipperf_runtime's textlm (run as a script on the host, not launched)
from chipperf_runtime.training.textlm import bytelevel  # noqa: E402

if __name__ == "__main__":
    sys.exit(bytelevel.main(None, __doc__.split("\n\n")[0],
                            "training/benchmarks/aquila2_70B/pytorch/prepare_data.py"))
