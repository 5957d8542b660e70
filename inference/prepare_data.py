"""Prepare the default inference data: the CI-sized sets inference/configs/host.yaml names.

    python3 inference/prepare_data.py [--root /tmp/chipperf-inference-data]

Makes what is missing under ``--root``: ``digits`` (scikit-learn's digits in ImageNet layout,
for resnet50 and the other vision cases), ``licenses`` (bert_large's WordPiece vocabulary and
questions from the text in /usr/share/common-licenses) and ``llm-prompts`` (llama3_8b's
byte-level BPE and prompts from the same text). ``python3 inference/run.py`` with its default
host.yaml calls it first, so a fresh clone runs as it is. It runs in the project's .venv (as
run.py does) and needs the ``data`` extra (``pip install -e '.[data]'``: numpy, Pillow,
scikit-learn, tokenizers).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
DEFAULT_ROOT = Path("/tmp/chipperf-inference-data")
TEXT = "/usr/share/common-licenses"
# folder -> (script, arguments before the output folder); what each writes last marks it done
STEPS = {
    "digits": ("training/benchmarks/resnet50/pytorch/prepare_digits.py", ("--force",), "dataset.json"),
    "licenses": ("inference/benchmarks/bert_large/pytorch/prepare_text.py", (TEXT,), "vocab.txt"),
    "llm-prompts": ("inference/benchmarks/llama3_8b/pytorch/prepare_prompts.py", (TEXT,), "tokenizer.json"),
}
DATA_MODULES = {"numpy": "numpy", "PIL": "Pillow", "sklearn": "scikit-learn", "tokenizers": "tokenizers"}
ONE_COMMAND = ".venv/bin/python -m pip install -e '.[data]' && python3 inference/prepare_data.py"


def missing(root: Path) -> list[str]:
    """The default folders under ``root`` that are not there (or not finished)."""
    return [name for name, (_, _, done) in STEPS.items() if not (root / name / done).is_file()]


def missing_modules() -> list[str]:
    import importlib.util

    return [pkg for module, pkg in DATA_MODULES.items() if importlib.util.find_spec(module) is None]


def prepare(root: Path, names: list[str]) -> str | None:
    """Make ``names`` under ``root`` with this python; None, or what went wrong and the fix."""
    if names and (lacking := missing_modules()):
        return (f"the default inference data ({', '.join(names)} under {root}) needs "
                f"{', '.join(lacking)} in {sys.executable}: run {ONE_COMMAND}")
    for name in names:
        script, before, _ = STEPS[name]
        print(f"preparing {root / name} ({script})", flush=True)
        done = subprocess.run([sys.executable, str(REPO / script), *before, str(root / name)],
                              capture_output=True, text=True)
        if done.returncode != 0:
            said = (done.stderr.strip().splitlines() or ["no output"])[-1]
            return f"{script} {root / name}: exit {done.returncode} ({said}): run {ONE_COMMAND}"
    return None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--root", type=Path, default=DEFAULT_ROOT)
    root = parser.parse_args(argv).root
    problem = prepare(root, missing(root))
    if problem:
        print(f"inference/prepare_data.py: {problem}", file=sys.stderr)
        return 2
    print(f"default inference data ready under {root}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
