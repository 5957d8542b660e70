"""The intel_gaudi path of the transformers text cases through Optimum Habana.

On an ``hpu`` device the case runs in lazy mode (``PT_HPU_LAZY_MODE=1``: ops are collected into
a graph that runs at each ``mark_step``), with transformers' models patched for Gaudi by
optimum-habana (``adapt_transformers_to_gaudi``: the fused kernels and static shapes
GaudiTrainer runs), a graph break after backward and after the optimizer step (what
GaudiTrainer does in lazy mode). HPU graphs are not used in training: GaudiTrainer wraps
the model in one (``wrap_in_hpu_graph``) only for an evaluation outside training, and its
``use_hpu_graphs_for_training`` (``ModuleCacher``) is not taken over here. The loop, its
timing and FINISHED stay chipperf's, so the figure is measured as on every other vendor.
Nothing here runs on another device; optimum-habana absent from the image is one
DeviceUnavailable naming the image folder that installs it.

Not run by chipperf: no Gaudi here (training/intel_gaudi/README.md).
"""

from __future__ import annotations

import importlib
import os
from dataclasses import dataclass
from typing import Any, Callable

from chipperf_runtime.training.driver.errors import DeviceUnavailable

IMAGE = "training/intel_gaudi/docker_image/pytorch_optimum_habana/"
LAZY_MODE = "PT_HPU_LAZY_MODE"


def missing_message(error: ImportError) -> str:
    """Where, what, how to fix, when ``optimum.habana`` does not import."""
    return ("intel_gaudi: optimum-habana is not installed in this image "
            f"(import optimum.habana: {error}): the Gaudi path of the transformers and diffusers "
            "cases needs it: run the case with the framework pytorch_optimum_habana (its image, "
            f"{IMAGE}, installs it), or pip install the optimum-habana release for the image's "
            "Gaudi software")


def import_optimum_habana() -> Any:
    try:
        return importlib.import_module("optimum.habana")
    except ImportError as error:
        raise DeviceUnavailable(missing_message(error)) from error


@dataclass(frozen=True)
class GaudiPath:
    """What the loop calls on an hpu: ``mark_step`` (the lazy-mode graph break); ``facts``
    for FINISHED's ``execution``."""

    mark_step: Callable[[], None]
    facts: dict[str, Any]


def gaudi_path() -> GaudiPath:
    """Lazy mode, transformers adapted to Gaudi by optimum-habana; raises DeviceUnavailable
    when optimum-habana is missing or lazy mode is off."""
    if os.environ.get(LAZY_MODE, "1") != "1":
        raise DeviceUnavailable(f"intel_gaudi: {LAZY_MODE}={os.environ[LAZY_MODE]}: the Optimum "
                                f"Habana path runs in lazy mode: unset it or set {LAZY_MODE}=1")
    optimum_habana = import_optimum_habana()
    modeling = importlib.import_module("optimum.habana.transformers.modeling_utils")
    modeling.adapt_transformers_to_gaudi()
    core = importlib.import_module("habana_frameworks.torch.core")
    facts = {"optimum_habana": getattr(optimum_habana, "__version__", "unknown"),
             "lazy_mode": True, "adapt_transformers_to_gaudi": True}
    return GaudiPath(core.mark_step, facts)
