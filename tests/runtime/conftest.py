"""The runtime tier: tests that import torch or another framework, or start processes, on this
machine (no Docker, no SSH). As a case entry script does, torchvision's import is prepared
first, explicitly (chipperf_runtime.models.tvision), before any test imports transformers.

``tiny_llama_dir`` (session): the served mode's tiny seeded random Llama folder
(``tinyllama.py``), written once for every test that serves it with the preset's shape."""

from pathlib import Path

import pytest
from tinyllama import write_tiny_llama

from chipperf_runtime.models.tvision import prepare_torchvision

prepare_torchvision()


@pytest.fixture(scope="session")
def tiny_llama_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_tiny_llama(tmp_path_factory.mktemp("tinyllama"))
