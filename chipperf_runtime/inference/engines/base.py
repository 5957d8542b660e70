"""The engine interface: ``prepare(model, example_inputs, precision) -> callable``.

An engine is built for one device from ``EngineOptions``; ``prepare`` turns the fp32 PyTorch
model into a callable that takes the case's host-format inputs (float32 / int64 tensors on the
device) and returns the output tensor on the device (in the engine's dtype). Casting inputs to
the engine's precision happens inside the callable. ``precisions(device)`` says what the
engine can do there; ``check`` raises CaseError (with the fix) before anything is built.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping, Optional, Protocol, Sequence

import torch
from torch import nn

from chipperf_runtime.device.torch import TorchDevice
from chipperf_runtime.inference.errors import CaseError

Runner = Callable[..., torch.Tensor]

DTYPES = {"fp32": torch.float32, "bf16": torch.bfloat16, "fp16": torch.float16}


@dataclass(frozen=True)
class EngineOptions:
    device: TorchDevice                  # the vendor's device (chipperf_runtime.device)
    work_dir: Path                       # scratch space for exported/built artefacts
    input_names: tuple[str, ...]
    onnx_file: Optional[str] = None      # a given ONNX file (else exported into work_dir)
    onnx_opset: int = 17
    num_threads: Optional[int] = None
    compile_mode: str = "default"
    trt_workspace_gb: float = 4.0
    batch_size: int = 1                  # the largest batch the engine must accept
    # the case's engine_options: settings only a vendor's own engine reads (FlagPerf's
    # resnet50_fuse, zixiao_test_batch_size, ...; engines/vendors/)
    engine_options: Mapping[str, Any] = field(default_factory=dict)


class Engine(Protocol):
    @property
    def name(self) -> str: ...

    def precisions(self, device: TorchDevice) -> tuple[str, ...]:
        """Precisions this engine runs on ``device``."""

    def check(self, precision: str) -> None:
        """Raise CaseError (what is missing and how to fix it) if it cannot run here."""

    def prepare(self, model: nn.Module, example_inputs: Sequence[torch.Tensor],
                precision: str) -> Runner:
        """Build the engine; raise EngineBuildError when that fails."""


def check_precision(engine: Engine, device: TorchDevice, precision: str) -> None:
    supported = engine.precisions(device)
    if precision not in supported:
        raise CaseError(f"engine {engine.name!r} cannot run precision {precision!r} on "
                        f"{device.type} (vendor {device.vendor}): "
                        f"set precision to one of {', '.join(supported) or '(none)'} in the "
                        "vendor configuration, or pick another engine")


def cast_inputs(inputs: Sequence[torch.Tensor], dtype: torch.dtype) -> tuple[torch.Tensor, ...]:
    """Floating inputs to ``dtype``; integer inputs (token ids, masks) unchanged."""
    return tuple(t.to(dtype) if t.is_floating_point() else t for t in inputs)


def model_copy(model: nn.Module, device: TorchDevice, dtype: torch.dtype) -> nn.Module:
    """A private copy, so no engine changes the reference model's weights."""
    return copy.deepcopy(model).to(device=device.device, dtype=dtype).eval()
