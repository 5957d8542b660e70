"""The shape every vendor engine adapter shares: ONNX in, the vendor's SDK builds it.

``VendorAdapter.check`` refuses another vendor, a precision the engine lacks and an absent
SDK (by name) before the model is built. ``HostArrayAdapter`` is the adapter of an SDK fed
host arrays: a subclass names its engine, its precisions and ``sdk_build(sdk, onnx_path,
precision)`` (a ``Build``: batch size -> host call); ``prepare`` exports the model to ONNX in
fp32 (the SDKs lower precision themselves; a given ``onnx_file`` is used as it is) and builds
it for the offline batch and for batch 1.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from types import ModuleType
from typing import Any, ClassVar, Sequence

import numpy as np
import torch
from torch import nn

from chipperf_runtime.device.torch import TorchDevice
from chipperf_runtime.inference.engines.base import EngineOptions, Runner, check_precision
from chipperf_runtime.inference.engines.onnx_export import onnx_file
from chipperf_runtime.inference.engines.vendors.sdk import Build, HostShapes, check_vendor, load_sdk
from chipperf_runtime.inference.errors import CaseError


@dataclass(frozen=True)
class VendorAdapter(ABC):
    options: EngineOptions
    name: ClassVar[str] = ""
    supported: ClassVar[tuple[str, ...]] = ("fp32", "fp16")
    # the precision the ONNX graph is exported in, per engine precision (default: fp32)
    graph_precision: ClassVar[dict[str, str]] = {}

    def precisions(self, device: TorchDevice) -> tuple[str, ...]:
        return self.supported

    def check(self, precision: str) -> None:
        check_vendor(self.name, self.options.device)
        check_precision(self, self.options.device, precision)
        self.sdk()

    def sdk(self) -> ModuleType:
        return load_sdk(self.name, self.options.device.vendor)

    @abstractmethod
    def prepare(self, model: nn.Module, example_inputs: Sequence[torch.Tensor],
                precision: str) -> Runner:
        """Build the engine for the offline batch and batch 1; EngineBuildError on failure."""

    def option(self, key: str, default: Any) -> Any:
        """A key of the case's engine_options (FlagPerf's vendor keys land there)."""
        return self.options.engine_options.get(key, default)

    def required_option(self, key: str, what: str) -> Any:
        value = self.options.engine_options.get(key)
        if value in (None, ""):
            raise CaseError(f"engine {self.name!r} needs engine_options.{key}: {what}")
        return value


class HostArrayAdapter(VendorAdapter):
    """An SDK fed host (numpy) arrays, built once per batch size (``sdk_build``)."""

    def prepare(self, model: nn.Module, example_inputs: Sequence[torch.Tensor],
                precision: str) -> Runner:
        path = onnx_file(model, example_inputs, self.options,
                         self.graph_precision.get(precision, "fp32"))
        build = self.sdk_build(self.sdk(), str(path), precision)
        shapes = HostShapes(build, self.options.device, self.input_dtype(precision))
        return shapes.prepare([self.options.batch_size, 1])

    def input_dtype(self, precision: str) -> Any:
        return np.float16 if self.graph_precision.get(precision) == "fp16" else np.float32

    @abstractmethod
    def sdk_build(self, sdk: ModuleType, path: str, precision: str) -> Build:
        """batch size -> the SDK's call built for it, from the ONNX file ``path``."""

