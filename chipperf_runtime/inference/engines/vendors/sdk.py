"""What the vendors' own engines share: loading the SDK or refusing by name, and running an
SDK that takes host arrays of fixed shapes.

``load_sdk`` imports the SDK's module by its real name (``vendor_engines.VENDOR_ENGINES``)
and turns its absence into one CaseError naming the SDK, the vendor and what to install.
``HostShapes`` is the runner of the SDKs that compile one executable per input shape and take
numpy arrays (XTCL, ZXRT, hx_infexec, MACA's ONNX Runtime): built at ``prepare`` for the
offline batch and for batch 1 (single-stream), so no build lands in the timed window.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any, Callable, Sequence

import numpy as np
import torch

from chipperf_runtime.device.torch import TorchDevice
from chipperf_runtime.inference.engines.base import Runner
from chipperf_runtime.inference.errors import CaseError
from chipperf_runtime.inference.vendor_engines import VENDOR_ENGINES, missing_sdk

# (host input arrays) -> the first output, as a host array
HostCall = Callable[[Sequence[np.ndarray]], np.ndarray]
# batch size -> the call built for it
Build = Callable[[int], HostCall]


def load_sdk(engine: str, vendor: str, module: str | None = None) -> ModuleType:
    """The SDK module of ``engine`` (or its submodule ``module``), or the CaseError naming it."""
    name = module or VENDOR_ENGINES[engine].module
    try:
        return importlib.import_module(name)
    except Exception as exc:  # an ImportError, or the SDK failing to find its libraries
        raise CaseError(missing_sdk(engine, vendor, f"{type(exc).__name__}: {exc}")) from exc


def load_onnx(engine: str) -> ModuleType:
    """The ``onnx`` package, which the adapters read the exported graph's inputs with."""
    try:
        return importlib.import_module("onnx")
    except ImportError as exc:
        raise CaseError(f"engine {engine!r} reads the model's ONNX graph with the onnx package, "
                        "which is not installed here: add onnx to the vendor image's "
                        "requirements.txt") from exc


def check_vendor(engine: str, device: TorchDevice) -> None:
    """The engine drives one vendor's chips: another vendor's run is refused by name."""
    owner = VENDOR_ENGINES[engine].vendor
    if device.vendor != owner:
        raise CaseError(f"engine {engine!r} is {VENDOR_ENGINES[engine].sdk}, which drives vendor "
                        f"{owner!r}'s chips only, and this run's vendor is {device.vendor!r}: "
                        "set engine to eager, compile or onnxruntime")


def onnx_inputs(path: str, sdk_onnx: Any) -> list[tuple[str, list[int], int]]:
    """(name, shape, ONNX element type) of each graph input (dynamic dimensions as 0)."""
    graph = sdk_onnx.load(path).graph
    return [(i.name, [d.dim_value for d in i.type.tensor_type.shape.dim],
             i.type.tensor_type.elem_type) for i in graph.input]


@dataclass
class HostShapes:
    """One built call per batch size, made ahead of time; inputs copied to the host as
    ``input_dtype`` arrays, the output handed back on the case's device."""

    build: Build
    device: TorchDevice
    input_dtype: Any = np.float32
    calls: dict[int, HostCall] = field(default_factory=dict)

    def prepare(self, batch_sizes: Sequence[int]) -> Runner:
        for size in sorted(set(batch_sizes)):
            self.calls[size] = self.build(size)
        return self.run

    def run(self, *inputs: torch.Tensor) -> torch.Tensor:
        size = int(inputs[0].shape[0])
        if size not in self.calls:
            raise CaseError(f"the engine was built for batch sizes {sorted(self.calls)}, not "
                            f"{size}: set batch_size so the data set splits into whole batches")
        arrays = [host_array(t, self.input_dtype) for t in inputs]
        return torch.from_numpy(np.ascontiguousarray(self.calls[size](arrays))).to(
            self.device.device)


def host_array(tensor: torch.Tensor, dtype: Any) -> np.ndarray:
    """A device tensor as a contiguous host array; floating ones in ``dtype``."""
    array = tensor.detach().to("cpu").contiguous().numpy()
    return array.astype(dtype) if tensor.is_floating_point() else array
