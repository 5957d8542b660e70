"""Engine registry: name -> factory(EngineOptions) -> Engine (see ``common.engines.base``).

Engines: ``eager`` and ``compile`` (PyTorch, on any device the device layer opens),
``onnxruntime`` (the execution provider registered for the device: the CPU's, or NVIDIA's),
``onnxruntime-trt`` (ONNX Runtime's TensorRT EP) and ``tensorrt`` (native); the last two run on
NVIDIA GPUs only (``common.engines.nvidia``); ``xtcl``, ``ixrt``, ``macart``, ``zxrt`` and
``hx_infexec`` drive one vendor's chip each through its SDK (``engines/vendors``).
``register`` adds one (tests use it to inject a faulty engine).
"""

from __future__ import annotations

from typing import Callable, Dict

from chipperf_runtime.inference.engines.base import Engine, EngineOptions
from chipperf_runtime.inference.engines.nvidia import onnxruntime_gpu  # noqa: F401 - registers NVIDIA's EPs
from chipperf_runtime.inference.engines.nvidia.tensorrt_engine import TensorRTEngine
from chipperf_runtime.inference.engines.onnxruntime_engine import OnnxRuntimeEngine
from chipperf_runtime.inference.engines.torch_engines import CompileEngine, EagerEngine
from chipperf_runtime.inference.engines.vendors import ADAPTERS
from chipperf_runtime.inference.errors import CaseError

Factory = Callable[[EngineOptions], Engine]

_ENGINES: Dict[str, Factory] = {
    "eager": EagerEngine,
    "compile": CompileEngine,
    "onnxruntime": OnnxRuntimeEngine,
    "onnxruntime-trt": lambda options: OnnxRuntimeEngine(options, "onnxruntime-trt", True),
    "tensorrt": TensorRTEngine,
    **ADAPTERS,   # xtcl, ixrt, macart, zxrt, hx_infexec: the vendors' own (engines/vendors/)
}


def register(name: str, factory: Factory) -> None:
    _ENGINES[name] = factory


def engine_names() -> list[str]:
    return sorted(_ENGINES)


def get_engine(name: str, options: EngineOptions) -> Engine:
    if name not in _ENGINES:
        raise CaseError(f"engine {name!r} is unknown: set engine to one of "
                        f"{', '.join(engine_names())} in the configuration")
    return _ENGINES[name](options)
