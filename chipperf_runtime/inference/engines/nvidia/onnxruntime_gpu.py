"""ONNX Runtime on NVIDIA GPUs: the CUDA EP (TF32 off, so fp32 is fp32) and the TensorRT EP.

Inputs and outputs stay on the GPU through I/O binding, so the timed call holds no host copies.
Importing this module registers the providers for device type ``cuda``.
"""

from __future__ import annotations

from typing import Any

import torch

from chipperf_runtime.device.torch import TorchDevice
from chipperf_runtime.inference.engines.base import EngineOptions, Runner
from chipperf_runtime.inference.engines.onnxruntime_engine import (
    EXECUTION_PROVIDERS,
    ONNX_TYPES,
    DeviceProviders,
)


def _cuda(options: EngineOptions) -> tuple[str, dict]:
    return ("CUDAExecutionProvider", {"device_id": options.device.device.index or 0,
                                      "use_tf32": 0})


def cuda_providers(options: EngineOptions, precision: str) -> list:
    return [_cuda(options), "CPUExecutionProvider"]


def tensorrt_providers(options: EngineOptions, precision: str) -> list:
    trt = ("TensorrtExecutionProvider", {
        "device_id": options.device.device.index or 0, "trt_fp16_enable": precision == "fp16",
        "trt_max_workspace_size": int(options.trt_workspace_gb * 2**30),
        "trt_engine_cache_enable": True,
        "trt_engine_cache_path": str(options.work_dir / "trt_cache")})
    return [trt, _cuda(options), "CPUExecutionProvider"]


def iobinding_runner(session: Any, device: TorchDevice) -> Runner:
    metas = session.get_inputs()
    out_meta = session.get_outputs()[0]
    out_np, out_torch = ONNX_TYPES[out_meta.type]
    rest = tuple(out_meta.shape[1:])
    static = all(isinstance(d, int) for d in rest)
    index = device.device.index or 0

    def run(*inputs: torch.Tensor) -> torch.Tensor:
        binding, keep = session.io_binding(), []
        for meta, tensor in zip(metas, inputs):
            np_type, torch_type = ONNX_TYPES[meta.type]
            tensor = tensor.to(torch_type).contiguous()
            keep.append(tensor)
            binding.bind_input(meta.name, "cuda", index, np_type, tuple(tensor.shape),
                               tensor.data_ptr())
        device.synchronize()  # ORT runs on its own stream: inputs must be ready
        if not static:
            binding.bind_output(out_meta.name, "cpu")
            session.run_with_iobinding(binding)
            return torch.from_numpy(binding.copy_outputs_to_cpu()[0]).to(device.device)
        out = torch.empty((inputs[0].shape[0], *rest), dtype=out_torch, device=device.device)
        binding.bind_output(out_meta.name, "cuda", index, out_np, tuple(out.shape),
                            out.data_ptr())
        session.run_with_iobinding(binding)
        return out

    return run


EXECUTION_PROVIDERS["cuda"] = DeviceProviders(("fp32", "fp16"), cuda_providers, iobinding_runner,
                                              "onnxruntime-gpu", tensorrt=tensorrt_providers)
