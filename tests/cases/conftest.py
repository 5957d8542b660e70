"""The cases tier: whole cases run in-process or as subprocesses on this machine. As a case
entry script does, torchvision's import is prepared first, explicitly
(chipperf_runtime.models.tvision), before any test imports transformers. ``digits`` is the
image cases' CI data, made once per session."""

import subprocess
import sys
from pathlib import Path

import pytest
from caserun import Case

from chipperf_runtime.models.tvision import prepare_torchvision

prepare_torchvision()

PREPARE_DIGITS = Case("resnet50", "pytorch").dir / "prepare_digits.py"


@pytest.fixture(scope="session")
def digits(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """scikit-learn's digits as an ImageNet folder (train/ and val/, one folder per class), by
    the resnet50 training case's own prepare_digits.py. Tests read it; none writes into it."""
    out = tmp_path_factory.mktemp("digits")
    subprocess.run([sys.executable, str(PREPARE_DIGITS), str(out)], check=True, timeout=300)
    return out
