"""torchvision, imported even where its compiled ops do not load beside this torch.

``import_torchvision()`` returns the ``torchvision`` module. Where torchvision's compiled
extension (``torchvision/_C.so``) loads, as beside the GPU build of torch in the
``pytorch_2.14`` images, nothing else happens: the extension defines torchvision's
operators and torchvision imports as it always does. Where it does not load, the function
first defines the schemas of the two operators that torchvision's import needs, then
imports it.

Why: PyPI's torchvision wheels (0.28.0 is the torch 2.13.0 pair) are built for the GPU build
of torch. Beside its CPU build (2.13.0+cpu: the cpu vendor's ``pytorch_2.13`` images, the test
venv) their ``_C.so`` fails to load (it needs the GPU build's libtorch); torchvision handles that
(``torchvision.extension._has_ops()`` is False), but its ``_meta_registrations`` then calls
``torch.library.register_fake("torchvision::nms")`` and ``("torchvision::qnms")``
unguarded, which raise "operator torchvision::nms does not exist", and ``import
torchvision`` fails. With the two schemas defined first (no kernels: nothing computes
through them), the import succeeds, and so do the model zoo (``torchvision.models``:
resnet50, vit_b_16, swin_t, ... build, train and run on the CPU) and transforms.

What still does not work there: torchvision's compiled operators (``torchvision.ops.nms``,
``roi_align``, ``deform_conv2d`` ..., and with them the detection models' post-processing)
raise torchvision's own "Couldn't load custom C++ ops" error. The detection cases use the
``pytorch_2.14`` image, where the ops load.

transformers imports torchvision whenever it is installed (``transformers.image_utils``,
reached from ``modeling_utils``), so ``prepare()`` must run before any first import of
torchvision, not only this module's: ``import chipperf`` installs a hook that runs it then
(``chipperf.torchvision_hook``). Without chipperf imported first, every transformers model
import fails with the error above in such a process.

How the ops are found: torchvision's extension is loaded the way torchvision's own import
loads it (``torch.ops.load_library`` on the ``_C`` extension module of the installed
package); a second load by torchvision's import is a no-op. torchvision's files are not
touched. Calling the function again, or after torchvision was imported, returns the module.
"""

from __future__ import annotations

import importlib
import importlib.machinery
import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import torch

# torchvision's own schemas of the operators its import registers fake kernels for unguarded
SCHEMAS = {
    "nms": "nms(Tensor dets, Tensor scores, float iou_threshold) -> Tensor",
    "qnms": "qnms(Tensor dets, Tensor scores, float iou_threshold) -> Tensor",
}
# the Library holding the schemas defined here: kept alive, as a collected Library drops them
_defined: list[torch.library.Library] = []


def import_torchvision() -> ModuleType:
    """The ``torchvision`` module, with the two schemas defined first where its compiled
    ops do not load (see the module's docstring). Idempotent."""
    if importlib.util.find_spec("torchvision") is None:
        raise ModuleNotFoundError(
            f"torchvision is not installed in {sys.executable}: add torchvision==0.28.0 (the "
            "torch 2.13.0 pair) to the image's requirements.txt", name="torchvision")
    prepare()
    return importlib.import_module("torchvision")


def prepare() -> None:
    """Before torchvision's first import: load its compiled ops as its import would, and
    where they do not load, define the two schemas its import needs. Does nothing once
    torchvision is imported or the operators exist. ``chipperf.torchvision_hook`` calls it
    when anything first imports torchvision."""
    if "torchvision" in sys.modules or importlib.util.find_spec("torchvision") is None:
        return
    if missing_ops() and not load_compiled_ops(find_extension("torchvision")):
        define_schemas(missing_ops())


def missing_ops() -> list[str]:
    """The operators of ``SCHEMAS`` that no library has defined in this process yet."""
    return [name for name in SCHEMAS if not hasattr(torch.ops.torchvision, name)]


def find_extension(package: str) -> Path | None:
    """``package``'s compiled ``_C`` extension module, found without importing the package
    (as torchvision's ``_get_extension_path`` finds it); None where it has none."""
    spec = importlib.util.find_spec(package)
    if spec is None:
        return None
    loader = (importlib.machinery.ExtensionFileLoader, importlib.machinery.EXTENSION_SUFFIXES)
    for folder in spec.submodule_search_locations or []:
        found = importlib.machinery.FileFinder(folder, loader).find_spec(f"{package}._C")
        if found is not None and found.origin:
            return Path(found.origin)
    return None


def load_compiled_ops(extension: Path | None) -> bool:
    """Load ``extension`` into torch's operator registry as torchvision does; True when it
    loaded and defined every operator of ``SCHEMAS``."""
    if extension is None:
        return False
    try:
        torch.ops.load_library(str(extension))
    except (ImportError, OSError):  # e.g. a GPU build's _C.so beside a CPU torch
        return False
    return not missing_ops()


def define_schemas(names: list[str]) -> None:
    """Define the ``torchvision::<name>`` schemas (no kernels) in one kept-alive Library."""
    if not names:
        return
    library = torch.library.Library("torchvision", "FRAGMENT")
    for name in names:
        library.define(SCHEMAS[name])
    _defined.append(library)
