"""``import torchvision`` made to work beside a CPU torch, whoever imports it first.

PyPI's torchvision wheels are built for the GPU build of torch; beside its CPU build (the cpu
vendor's ``pytorch_2.13`` images, the test venv) their import fails unless two operator
schemas are defined first (``chipperf.models.tvision`` says why and does it). Calling that
before each ``import torchvision`` is not enough: transformers imports torchvision on its own
whenever it is installed (``transformers.image_utils``), so every transformers model would
fail to import.

``install()`` (run by ``import chipperf``) puts a finder at the head of ``sys.meta_path``
that acts once, when ``torchvision`` is first looked up: it takes itself off the path and
runs ``chipperf.models.tvision.prepare()`` (which loads torchvision's compiled ops where they
load and defines the two schemas only where they do not), then lets the usual finders import
torchvision. Where torchvision is not installed, or loads its ops (beside the GPU build), it
changes nothing. Standard library only: ``chipperf`` is imported on hosts without torch.
"""

from __future__ import annotations

import importlib.abc
import importlib.util
import sys
from collections.abc import Sequence
from importlib.machinery import ModuleSpec
from types import ModuleType


class BeforeTorchvision(importlib.abc.MetaPathFinder):
    """Runs ``chipperf.models.tvision.prepare()`` when torchvision is first looked up."""

    def find_spec(self, fullname: str, path: Sequence[str] | None = None,
                  target: ModuleType | None = None) -> ModuleSpec | None:
        if fullname == "torchvision":
            uninstall()
            if importlib.util.find_spec("torch") is not None:
                from chipperf.models.tvision import prepare

                prepare()
        return None  # the usual finders import it


def install() -> None:
    """Put the finder first on ``sys.meta_path`` unless torchvision is imported or it is there."""
    if "torchvision" not in sys.modules and not installed():
        sys.meta_path.insert(0, BeforeTorchvision())


def installed() -> bool:
    return any(isinstance(f, BeforeTorchvision) for f in sys.meta_path)


def uninstall() -> None:
    sys.meta_path[:] = [f for f in sys.meta_path if not isinstance(f, BeforeTorchvision)]
