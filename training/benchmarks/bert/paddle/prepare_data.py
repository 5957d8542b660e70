"""Prepare the bert case's small, real, offline corpus in the layout ``textlm.mlm`` reads.

    python3 prepare_data.py --output DIR [--source PATH ...] [--vocab-size 1024] [--seq-len 64]
                            [--eval-every 10] [--seed 1234]

The layout ("bert-mlm-shards-v1": vocab.txt, train/*.npy, eval/*.npy, meta.json) is shared
with the bert/pytorch case, so one prepared folder serves both frameworks and both train on
the same tokens. The corpus builder is that case's ``prepare_data.py`` (English prose already
on the machine: Python's language reference in ``pydoc_data``, the standard library's
docstrings, ``/usr/share/common-licenses``; a WordPiece vocabulary built from it; nothing
downloaded). This script runs it as a script with the same arguments, then opens the result
with the reader this case trains from (``textlm.mlm``, shared by both bert cases), so a corpus
it cannot read fails here, not in a run.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

CASE_DIR = Path(__file__).resolve().parent
BUILDER = CASE_DIR.parent / "pytorch" / "prepare_data.py"


def output_dir(argv: list[str]) -> Path | None:
    for i, arg in enumerate(argv):
        if arg == "--output" and i + 1 < len(argv):
            return Path(argv[i + 1])
        if arg.startswith("--output="):
            return Path(arg.split("=", 1)[1])
    return None


def check(folder: Path) -> str:
    """Open ``folder`` with this case's reader; a one-line summary."""
    sys.path.insert(0, str(CASE_DIR.parents[2]))  # chipperf_runtime: textlm, driver
    from chipperf_runtime.training.textlm import mlm

    dataset = mlm.open_dataset(folder, vocab_size=2**31, max_positions=2**31,
                               prepare=str(Path(__file__)))
    return (f"bert/paddle reads {folder}: {len(dataset.train)} train and {len(dataset.eval)} "
            f"eval rows of {dataset.seq_len} tokens, vocabulary {len(dataset.vocab)}")


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if not BUILDER.is_file():
        print(f"error: the corpus builder {BUILDER} is missing", file=sys.stderr)
        return 1
    built = subprocess.run([sys.executable, str(BUILDER), *argv], check=False)
    folder = output_dir(argv)
    if built.returncode != 0 or folder is None:
        return built.returncode
    print(check(folder))
    return 0


if __name__ == "__main__":
    sys.exit(main())
