"""ONNX Runtime on the vendor's device, through the execution providers registered for it.

Each device type that ONNX Runtime can run on has a ``DeviceProviders`` entry in
``EXECUTION_PROVIDERS``: the CPU EP here, NVIDIA's GPU and TensorRT EPs in
``common.engines.nvidia.onnxruntime_gpu``. ``onnxruntime`` uses the device's main EP;
``onnxruntime-trt`` its TensorRT EP, where it has one. A device type with no entry is a
clear error naming the vendor and the engines that do run there.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Optional, Sequence

import numpy as np
import torch
from torch import nn

from chipperf_runtime.device.torch import TorchDevice
from chipperf_runtime.inference.engines.base import EngineOptions, Runner, check_precision
from chipperf_runtime.inference.engines.onnx_export import onnx_file
from chipperf_runtime.inference.errors import CaseError, EngineBuildError

ONNX_TYPES: dict[str, tuple[Any, torch.dtype]] = {
    "tensor(float)": (np.float32, torch.float32),
    "tensor(float16)": (np.float16, torch.float16),
    "tensor(int64)": (np.int64, torch.int64),
    "tensor(int32)": (np.int32, torch.int32),
}

Providers = Callable[[EngineOptions, str], list]   # (options, precision) -> providers


@dataclass(frozen=True)
class DeviceProviders:
    """How ONNX Runtime runs on one device type.

    ``main`` and ``tensorrt`` build the provider list (first entry: the one that must be
    used) for the ``onnxruntime`` and ``onnxruntime-trt`` engines; ``runner`` wraps a
    session into a call on device tensors; ``package`` is the pip package that has the EP."""

    precisions: tuple[str, ...]
    main: Providers
    runner: Callable[[Any, TorchDevice], Runner]
    package: str
    tensorrt: Optional[Providers] = None


def _ort() -> Any:
    try:
        import onnxruntime
    except ImportError as exc:
        raise CaseError("onnxruntime is not installed: run in the vendor's image (its "
                        "requirements list onnxruntime / onnxruntime-gpu), or pip install "
                        "onnxruntime") from exc
    return onnxruntime


def _cpu_runner(session: Any, device: TorchDevice) -> Runner:
    metas = session.get_inputs()
    output = session.get_outputs()[0].name

    def run(*inputs: torch.Tensor) -> torch.Tensor:
        feeds = {m.name: t.to(ONNX_TYPES[m.type][1]).contiguous().numpy()
                 for m, t in zip(metas, inputs)}
        return torch.from_numpy(session.run([output], feeds)[0])

    return run


EXECUTION_PROVIDERS: dict[str, DeviceProviders] = {
    "cpu": DeviceProviders(("fp32",), lambda options, precision: ["CPUExecutionProvider"],
                           _cpu_runner, "onnxruntime"),
}


@dataclass(frozen=True)
class OnnxRuntimeEngine:
    options: EngineOptions
    name: str = "onnxruntime"
    tensorrt_ep: bool = False

    def precisions(self, device: TorchDevice) -> tuple[str, ...]:
        entry = EXECUTION_PROVIDERS.get(device.type)
        return entry.precisions if entry is not None else ()

    def providers(self, precision: str) -> list:
        build = self._entry().tensorrt if self.tensorrt_ep else self._entry().main
        assert build is not None  # check() refused the engine otherwise
        return build(self.options, precision)

    def check(self, precision: str) -> None:
        entry = self._entry()
        if self.tensorrt_ep and entry.tensorrt is None:
            raise CaseError(f"engine 'onnxruntime-trt' needs an NVIDIA GPU (TensorRT), and vendor "
                            f"{self.options.device.vendor} names device {self.options.device.type}: "
                            "use engine onnxruntime, eager or compile")
        check_precision(self, self.options.device, precision)
        wanted = _name(self.providers(precision)[0])
        available = _ort().get_available_providers()
        if wanted not in available:
            raise CaseError(f"engine {self.name!r} needs ONNX Runtime's {wanted}, but this "
                            f"onnxruntime offers {', '.join(available)}: install {entry.package} "
                            "in the vendor's image")

    def prepare(self, model: nn.Module, example_inputs: Sequence[torch.Tensor],
                precision: str) -> Runner:
        # The TensorRT EP lowers precision itself from an fp32 graph.
        graph_precision = "fp32" if self.tensorrt_ep else precision
        path = onnx_file(model, example_inputs, self.options, graph_precision)
        session = self._session(str(path), precision)
        return self._entry().runner(session, self.options.device)

    def _entry(self) -> DeviceProviders:
        device = self.options.device
        entry = EXECUTION_PROVIDERS.get(device.type)
        if entry is None:
            raise CaseError(f"engine {self.name!r}: chipperf has no ONNX Runtime execution "
                            f"provider for device {device.type} (vendor {device.vendor}); it "
                            f"has one for {', '.join(sorted(EXECUTION_PROVIDERS))}: use engine "
                            "eager or compile")
        return entry

    def _session(self, path: str, precision: str) -> Any:
        ort = _ort()
        opts = ort.SessionOptions()
        opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        if self.options.num_threads:
            opts.intra_op_num_threads = self.options.num_threads
        providers = self.providers(precision)
        try:
            session = ort.InferenceSession(path, opts, providers=providers)
        except Exception as exc:  # noqa: BLE001 - any session failure is a build failure
            raise EngineBuildError(f"ONNX Runtime could not load {path}: {exc}: check the ONNX "
                                   "file (or set onnx_file: null to export it)") from exc
        if session.get_providers()[0] != _name(providers[0]):
            raise EngineBuildError(f"ONNX Runtime fell back to {session.get_providers()[0]} "
                                   f"instead of {_name(providers[0])}: check that the vendor's "
                                   f"runtime libraries match the {self._entry().package} build")
        return session


def _name(provider: Any) -> str:
    return provider[0] if isinstance(provider, tuple) else provider
