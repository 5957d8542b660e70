"""Native TensorRT (nvidia only): ONNX -> TensorRT engine with a dynamic-batch profile.

``import tensorrt`` is guarded: where it is missing the case stops with a clear error. fp32
builds clear TensorRT's TF32 flag, so fp32 means fp32; fp16 and bf16 set the matching builder
flag on an fp32 graph. Inputs and outputs are CUDA tensors bound by address and run on
PyTorch's current stream.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

import torch
from torch import nn

from chipperf_runtime.device.torch import TorchDevice
from chipperf_runtime.inference.engines.base import EngineOptions, Runner, check_precision
from chipperf_runtime.inference.engines.onnx_export import onnx_file
from chipperf_runtime.inference.errors import CaseError, EngineBuildError


def _trt() -> Any:
    try:
        import tensorrt
    except ImportError as exc:
        raise CaseError("engine 'tensorrt' needs the TensorRT Python package, which is not "
                        "installed here: run in the nvidia image "
                        "(inference/nvidia/docker_image/pytorch_2.13), pip install tensorrt, or "
                        "use engine onnxruntime") from exc
    return tensorrt


@dataclass(frozen=True)
class TensorRTEngine:
    options: EngineOptions
    name: str = "tensorrt"

    def precisions(self, device: TorchDevice) -> tuple[str, ...]:
        return ("fp32", "fp16", "bf16") if device.type == "cuda" else ()

    def check(self, precision: str) -> None:
        device = self.options.device
        if device.type != "cuda":
            raise CaseError(f"engine 'tensorrt' needs device: cuda (TensorRT runs on NVIDIA "
                            f"GPUs), and vendor {device.vendor} names device {device.type}: "
                            "use engine onnxruntime, eager or compile")
        check_precision(self, self.options.device, precision)
        trt = _trt()
        if precision == "bf16" and not hasattr(trt.BuilderFlag, "BF16"):
            raise CaseError(f"TensorRT {trt.__version__} has no bf16 builder flag (TensorRT >= 9 "
                            "does): set precision fp16 or fp32")

    def prepare(self, model: nn.Module, example_inputs: Sequence[torch.Tensor],
                precision: str) -> Runner:
        trt = _trt()
        path = onnx_file(model, example_inputs, self.options, "fp32")
        logger = trt.Logger(trt.Logger.WARNING)
        serialized = self._build(trt, logger, path.read_bytes(), example_inputs, precision)
        engine = trt.Runtime(logger).deserialize_cuda_engine(serialized)
        if engine is None:
            raise EngineBuildError("TensorRT could not deserialise the engine it just built")
        return _runner(trt, engine, self.options.device)

    def _build(self, trt: Any, logger: Any, onnx_bytes: bytes,
               example_inputs: Sequence[torch.Tensor], precision: str) -> Any:
        builder = trt.Builder(logger)
        network = builder.create_network(0)
        parser = trt.OnnxParser(network, logger)
        if not parser.parse(onnx_bytes):
            errors = "; ".join(str(parser.get_error(i)) for i in range(parser.num_errors))
            raise EngineBuildError(f"TensorRT's ONNX parser rejected the model: {errors}: try "
                                   "another onnx_opset, or engine onnxruntime")
        config = builder.create_builder_config()
        config.set_memory_pool_limit(trt.MemoryPoolType.WORKSPACE,
                                     int(self.options.trt_workspace_gb * 2**30))
        config.clear_flag(trt.BuilderFlag.TF32)
        if precision in ("fp16", "bf16"):
            config.set_flag(trt.BuilderFlag.FP16 if precision == "fp16" else trt.BuilderFlag.BF16)
        config.add_optimization_profile(self._profile(builder, network, example_inputs))
        serialized = builder.build_serialized_network(network, config)
        if serialized is None:
            raise EngineBuildError(f"TensorRT failed to build a {precision} engine (see its log "
                                   "above): try precision fp32, a larger trt_workspace_gb, or "
                                   "engine onnxruntime")
        return serialized

    def _profile(self, builder: Any, network: Any, example_inputs: Sequence[torch.Tensor]) -> Any:
        profile = builder.create_optimization_profile()
        largest = self.options.batch_size
        for index, example in zip(range(network.num_inputs), example_inputs):
            rest = tuple(example.shape[1:])
            profile.set_shape(network.get_input(index).name, (1, *rest), (largest, *rest),
                              (largest, *rest))
        return profile


def _torch_dtype(trt: Any, dtype: Any) -> torch.dtype:
    names = {"float32": torch.float32, "float16": torch.float16, "bfloat16": torch.bfloat16,
             "int32": torch.int32, "int64": torch.int64, "int8": torch.int8, "bool": torch.bool}
    table = {getattr(trt, n): t for n, t in names.items() if hasattr(trt, n)}
    return table[dtype]


def _runner(trt: Any, engine: Any, device: TorchDevice) -> Runner:
    context = engine.create_execution_context()
    names = [engine.get_tensor_name(i) for i in range(engine.num_io_tensors)]
    inputs = [n for n in names if engine.get_tensor_mode(n) == trt.TensorIOMode.INPUT]
    outputs = [n for n in names if engine.get_tensor_mode(n) == trt.TensorIOMode.OUTPUT]
    types = {n: _torch_dtype(trt, engine.get_tensor_dtype(n)) for n in names}

    def run(*tensors: torch.Tensor) -> torch.Tensor:
        keep = []
        for name, tensor in zip(inputs, tensors):
            tensor = tensor.to(types[name]).contiguous()
            keep.append(tensor)
            context.set_input_shape(name, tuple(tensor.shape))
            context.set_tensor_address(name, tensor.data_ptr())
        out = torch.empty(tuple(context.get_tensor_shape(outputs[0])), dtype=types[outputs[0]],
                          device=device.device)
        context.set_tensor_address(outputs[0], out.data_ptr())
        if not context.execute_async_v3(torch.cuda.current_stream().cuda_stream):
            raise RuntimeError("TensorRT execute_async_v3 failed")
        return out

    return run
