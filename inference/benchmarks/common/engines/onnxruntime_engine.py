"""ONNX Runtime: CPU execution provider on cpu; CUDA or TensorRT execution provider on cuda.

``onnxruntime`` picks the CPU EP on cpu and the CUDA EP on cuda (TF32 off, so fp32 is fp32);
``onnxruntime-trt`` uses the TensorRT EP (cuda only). On cuda, inputs and outputs stay on the
GPU through I/O binding, so the timed call holds no host copies.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np
import torch
from torch import nn

from common.engines.base import EngineOptions, Runner, check_device, check_precision
from common.engines.onnx_export import onnx_file
from common.errors import CaseError, EngineBuildError

ONNX_TYPES: dict[str, tuple[Any, torch.dtype]] = {
    "tensor(float)": (np.float32, torch.float32),
    "tensor(float16)": (np.float16, torch.float16),
    "tensor(int64)": (np.int64, torch.int64),
    "tensor(int32)": (np.int32, torch.int32),
}


def _ort() -> Any:
    try:
        import onnxruntime
    except ImportError as exc:
        raise CaseError("onnxruntime is not installed: run in the vendor's image (its "
                        "requirements list onnxruntime / onnxruntime-gpu), or pip install "
                        "onnxruntime") from exc
    return onnxruntime


@dataclass(frozen=True)
class OnnxRuntimeEngine:
    options: EngineOptions
    name: str = "onnxruntime"
    tensorrt_ep: bool = False

    def precisions(self, device: str) -> tuple[str, ...]:
        return ("fp32", "fp16") if device == "cuda" else ("fp32",)

    def providers(self, precision: str) -> list:
        if self.options.device == "cpu":
            return ["CPUExecutionProvider"]
        cuda = ("CUDAExecutionProvider", {"device_id": 0, "use_tf32": 0})
        if not self.tensorrt_ep:
            return [cuda, "CPUExecutionProvider"]
        trt = ("TensorrtExecutionProvider", {
            "device_id": 0, "trt_fp16_enable": precision == "fp16",
            "trt_max_workspace_size": int(self.options.trt_workspace_gb * 2**30),
            "trt_engine_cache_enable": True,
            "trt_engine_cache_path": str(self.options.work_dir / "trt_cache")})
        return [trt, cuda, "CPUExecutionProvider"]

    def check(self, precision: str) -> None:
        if self.tensorrt_ep and self.options.device != "cuda":
            raise CaseError("engine 'onnxruntime-trt' needs device: cuda (TensorRT runs on "
                            "NVIDIA GPUs): use engine onnxruntime on cpu")
        check_device(self.options.device)
        check_precision(self, self.options.device, precision)
        wanted = _name(self.providers(precision)[0])
        available = _ort().get_available_providers()
        if wanted not in available:
            package = "onnxruntime-gpu" if self.options.device == "cuda" else "onnxruntime"
            raise CaseError(f"engine {self.name!r} needs ONNX Runtime's {wanted}, but this "
                            f"onnxruntime offers {', '.join(available)}: install {package} "
                            "(the nvidia image has it)")

    def prepare(self, model: nn.Module, example_inputs: Sequence[torch.Tensor],
                precision: str) -> Runner:
        # The TensorRT EP lowers precision itself from an fp32 graph.
        graph_precision = "fp32" if self.tensorrt_ep else precision
        path = onnx_file(model, example_inputs, self.options, graph_precision)
        session = self._session(str(path), precision)
        if self.options.device == "cuda":
            return _cuda_runner(session)
        return _cpu_runner(session)

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
                                   f"instead of {_name(providers[0])}: check that the CUDA, "
                                   "cuDNN and TensorRT libraries match the onnxruntime-gpu build")
        return session


def _name(provider: Any) -> str:
    return provider[0] if isinstance(provider, tuple) else provider


def _cpu_runner(session: Any) -> Runner:
    metas = session.get_inputs()
    output = session.get_outputs()[0].name

    def run(*inputs: torch.Tensor) -> torch.Tensor:
        feeds = {m.name: t.to(ONNX_TYPES[m.type][1]).contiguous().numpy()
                 for m, t in zip(metas, inputs)}
        return torch.from_numpy(session.run([output], feeds)[0])

    return run


def _cuda_runner(session: Any) -> Runner:
    metas = session.get_inputs()
    out_meta = session.get_outputs()[0]
    out_np, out_torch = ONNX_TYPES[out_meta.type]
    rest = tuple(out_meta.shape[1:])
    static = all(isinstance(d, int) for d in rest)

    def run(*inputs: torch.Tensor) -> torch.Tensor:
        binding, keep = session.io_binding(), []
        for meta, tensor in zip(metas, inputs):
            np_type, torch_type = ONNX_TYPES[meta.type]
            tensor = tensor.to(torch_type).contiguous()
            keep.append(tensor)
            binding.bind_input(meta.name, "cuda", 0, np_type, tuple(tensor.shape),
                               tensor.data_ptr())
        torch.cuda.synchronize()  # ORT runs on its own stream: inputs must be ready
        if not static:
            binding.bind_output(out_meta.name, "cpu")
            session.run_with_iobinding(binding)
            return torch.from_numpy(binding.copy_outputs_to_cpu()[0]).cuda()
        out = torch.empty((inputs[0].shape[0], *rest), dtype=out_torch, device="cuda")
        binding.bind_output(out_meta.name, "cuda", 0, out_np, tuple(out.shape), out.data_ptr())
        session.run_with_iobinding(binding)
        return out

    return run
