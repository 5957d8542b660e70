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
load and defines the two schemas and the CPU ``nms`` kernel only where they do not), then
hands back the spec the usual finders give, its loader wrapped so that
``chipperf.models.tvision.complete()`` runs once torchvision's ``__init__`` has (it binds
``torchvision.ops.nms`` to that kernel and ``roi_align``'s pure-torch path to chipperf's).
Where torchvision is not installed, or loads its ops (beside the GPU build), it changes
nothing. Standard library only: ``chipperf`` is imported on hosts without torch.
"""

from __future__ import annotations

import importlib.abc
import importlib.util
import sys
from collections.abc import Callable, Sequence
from importlib.machinery import ModuleSpec
from types import ModuleType


class BeforeTorchvision(importlib.abc.MetaPathFinder):
    """Runs ``chipperf.models.tvision.prepare()`` when torchvision is first looked up, and
    ``complete()`` when its import has run."""

    def find_spec(self, fullname: str, path: Sequence[str] | None = None,
                  target: ModuleType | None = None) -> ModuleSpec | None:
        if fullname != "torchvision":
            return None
        uninstall()
        if importlib.util.find_spec("torch") is None:
            return None
        from chipperf.models.tvision import complete, prepare

        prepare()
        spec = importlib.util.find_spec("torchvision")     # the usual finders' spec
        if spec is None or spec.loader is None:
            return spec
        spec.loader = ThenComplete(spec.loader, complete)
        return spec


class ThenComplete(importlib.abc.Loader):
    """``loader``, then ``complete(module)`` once the module's code has run. The module keeps
    ``loader`` as its own (``__loader__``, ``__spec__.loader``), as if found without us."""

    def __init__(self, loader: importlib.abc.Loader,
                 complete: Callable[[ModuleType], None]) -> None:
        self.loader = loader
        self.complete = complete

    def create_module(self, spec: ModuleSpec) -> ModuleType | None:
        return self.loader.create_module(spec)

    def exec_module(self, module: ModuleType) -> None:
        module.__loader__ = self.loader
        if module.__spec__ is not None:
            module.__spec__.loader = self.loader
        self.loader.exec_module(module)
        self.complete(module)


def install() -> None:
    """Put the finder first on ``sys.meta_path`` unless torchvision is imported or it is there."""
    if "torchvision" not in sys.modules and not installed():
        sys.meta_path.insert(0, BeforeTorchvision())


def installed() -> bool:
    return any(isinstance(f, BeforeTorchvision) for f in sys.meta_path)


def uninstall() -> None:
    sys.meta_path[:] = [f for f in sys.meta_path if not isinstance(f, BeforeTorchvision)]
