"""Write generated conversations in FlagPerf's aquila2_7b_finetune layout.

    python3 prepare_data.py --output DIR [--samples 2000] [--seed 1234]

DIR/dataset/alpaca_data_train.jsonl: one {"id", "conversations", "instruction"} object a
line, FlagAI's Aquila chat format, which FlagPerf's case reads (``textlm/convo.py``): a human
asks for the summary of a dialogue generated from one template with seeded names, items and
days, the assistant gives it. For a real run put FlagAI's alpaca_data_train.jsonl there
instead. The checkpoint the case continues from is aquila2_7b's (its save_checkpoint knob).
Needs only numpy, the standard library and ``chipperf_runtime/training/textlm``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

REPO = str(Path(__file__).resolve().parents[4])
if REPO not in sys.path:
    sys.path.insert(1, REPO)  # chipperf_runtime's textlm (run as a script on the host, not launched)
from chipperf_runtime.training.textlm import convo  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--output", type=Path, required=True)
    parser.add_argument("--samples", type=int, default=2000, help="conversations")
    parser.add_argument("--seed", type=int, default=1234)
    args = parser.parse_args(argv)
    path = convo.write_generated(args.output, args.samples, args.seed)
    print(f"{path}: {args.samples} conversations")
    return 0


if __name__ == "__main__":
    sys.exit(main())
