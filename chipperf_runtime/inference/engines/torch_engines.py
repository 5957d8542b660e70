"""PyTorch engines: eager execution and ``torch.compile`` (Inductor; needs a C compiler on CPU)."""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from typing import Sequence

import torch
from torch import nn

from chipperf_runtime.device.torch import TorchDevice
from chipperf_runtime.inference.engines.base import (
    DTYPES,
    EngineOptions,
    Runner,
    cast_inputs,
    check_precision,
    model_copy,
)
from chipperf_runtime.inference.errors import CaseError, EngineBuildError


def torch_precisions(device: TorchDevice) -> tuple[str, ...]:
    """fp32 everywhere; fp16 on accelerators; bf16 where the device computes in it."""
    if not device.is_accelerator:
        return ("fp32", "bf16")
    return ("fp32", "fp16", "bf16") if device.supports_dtype(torch.bfloat16) else ("fp32", "fp16")


@dataclass(frozen=True)
class EagerEngine:
    options: EngineOptions
    name: str = "eager"

    def precisions(self, device: TorchDevice) -> tuple[str, ...]:
        return torch_precisions(device)

    def check(self, precision: str) -> None:
        check_precision(self, self.options.device, precision)

    def prepare(self, model: nn.Module, example_inputs: Sequence[torch.Tensor],
                precision: str) -> Runner:
        dtype = DTYPES[precision]
        module = model_copy(model, self.options.device, dtype)

        def run(*inputs: torch.Tensor) -> torch.Tensor:
            with torch.inference_mode():
                return module(*cast_inputs(inputs, dtype))

        return run


@dataclass(frozen=True)
class CompileEngine:
    options: EngineOptions
    name: str = "compile"

    def precisions(self, device: TorchDevice) -> tuple[str, ...]:
        return torch_precisions(device)

    def check(self, precision: str) -> None:
        check_precision(self, self.options.device, precision)
        if not self.options.device.is_accelerator and not (shutil.which("g++") or shutil.which("c++")):
            raise CaseError("engine 'compile' on cpu needs a C++ compiler (Inductor builds C++ "
                            "kernels): install g++ and python3-dev in the image, or use engine "
                            "eager")

    def prepare(self, model: nn.Module, example_inputs: Sequence[torch.Tensor],
                precision: str) -> Runner:
        dtype = DTYPES[precision]
        module = model_copy(model, self.options.device, dtype)
        try:
            compiled = torch.compile(module, mode=self.options.compile_mode, dynamic=False)
        except Exception as exc:  # noqa: BLE001 - any failure here is a build failure
            raise EngineBuildError(f"torch.compile(mode={self.options.compile_mode!r}) failed: "
                                   f"{exc}: try compile_mode: default, or engine eager") from exc

        def run(*inputs: torch.Tensor) -> torch.Tensor:
            with torch.no_grad():
                return compiled(*cast_inputs(inputs, dtype))

        try:
            run(*example_inputs)  # compiles now, so the build counts as build time
        except Exception as exc:  # noqa: BLE001
            raise EngineBuildError(f"torch.compile could not build the model: {exc}: try "
                                   "compile_mode: default, or engine eager") from exc
        return run
