"""The MMLU cases' engines: the model's next-token logits at the prompt's last position, in
the engine's precision. ``eager`` is the suite's eager engine; ``compile`` is ``torch.compile``
with dynamic shapes (every prompt has its own length: FlagPerf's ``dynamo_dynamic: true``)."""

from __future__ import annotations

import shutil
from typing import Any, Callable

import torch
from torch import nn

from chipperf_runtime.device.torch import TorchDevice
from chipperf_runtime.inference.engines.base import DTYPES, Runner, model_copy
from chipperf_runtime.inference.engines.torch_engines import torch_precisions
from chipperf_runtime.inference.errors import CaseError, EngineBuildError


class LastLogits(nn.Module):
    """``input_ids [1, T] -> logits [1, vocab]`` of the last position (the answer token)."""

    def __init__(self, causal_lm: Any) -> None:
        super().__init__()
        self.lm = causal_lm

    def forward(self, input_ids: torch.Tensor) -> torch.Tensor:
        return self.lm(input_ids=input_ids, use_cache=False).logits[:, -1, :]


class MMLUEngine:
    def __init__(self, name: str, device: TorchDevice, compile_mode: str) -> None:
        self.name, self.device, self.compile_mode = name, device, compile_mode

    def check(self, precision: str) -> None:
        supported = torch_precisions(self.device)
        if precision not in supported:
            raise CaseError(f"engine {self.name!r} cannot run precision {precision!r} on "
                            f"{self.device.type}: set precision to one of "
                            f"{', '.join(supported)} in the vendor configuration")
        if self.name == "compile" and not self.device.is_accelerator \
                and not (shutil.which("g++") or shutil.which("c++")):
            raise CaseError("engine 'compile' on cpu needs a C++ compiler (Inductor builds C++ "
                            "kernels): install g++ and python3-dev in the image, or use engine "
                            "eager")

    def prepare(self, model: LastLogits, precision: str) -> Runner:
        module: Callable[[torch.Tensor], torch.Tensor] = model_copy(model, self.device,
                                                                     DTYPES[precision])
        if self.name == "compile":
            try:
                module = torch.compile(module, mode=self.compile_mode, dynamic=True)
            except Exception as exc:  # noqa: BLE001 - any failure here is a build failure
                raise EngineBuildError(f"torch.compile(mode={self.compile_mode!r}) failed: "
                                       f"{exc}: try engine eager") from exc

        def run(input_ids: torch.Tensor) -> torch.Tensor:
            with torch.inference_mode():
                return module(input_ids)

        return run
