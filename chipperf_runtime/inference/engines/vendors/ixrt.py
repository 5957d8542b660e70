"""Engine ``ixrt``: Iluvatar's IxRT, a TensorRT-compatible runtime (its ``tensorrt`` module and
its ``ixrtexec`` builder), on Iluvatar's CUDA-compatible PyTorch (device ``cuda``).

The steps of FlagPerf's ``inference/inference_engine/iluvatar/ixrt.py``
(FlagOpen/FlagPerf@1b5a0303), written here: ``ixrtexec --onnx=<graph> --save_engine=<file>``
(``--precision fp16`` for fp16; one static shape per batch size through ``--minShapes``,
``--optShapes`` and ``--maxShapes``, FlagPerf's dynamic-axis flags), the engine file read back
with ``tensorrt.Runtime(...).deserialize_cuda_engine``, and one execution context per batch
size. FlagPerf copies through pycuda buffers; here the inputs and the output are the case's
device tensors, bound by address (``execute_v2``), so the timed call holds no host copy.
FlagPerf also runs ``onnxsim`` on the graph first; chipperf does not (the export is already
folded). Both ``tensorrt`` and ``ixrtexec`` are checked: NVIDIA's TensorRT has the module but
not the builder, and is refused by name. Not run by chipperf: no Iluvatar GPU or IxRT here
(inference/iluvatar/README.md).
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from types import ModuleType
from typing import Any, ClassVar, Sequence

import numpy as np
import torch
from torch import nn

from chipperf_runtime.inference.engines.base import Runner
from chipperf_runtime.inference.engines.onnx_export import onnx_file
from chipperf_runtime.inference.engines.vendors.adapter import VendorAdapter
from chipperf_runtime.inference.engines.vendors.sdk import load_onnx, onnx_inputs
from chipperf_runtime.inference.errors import CaseError, EngineBuildError
from chipperf_runtime.inference.vendor_engines import missing_sdk

BUILDER = "ixrtexec"
COREX_BIN = "/usr/local/corex/bin/ixrtexec"   # where Iluvatar's CoreX SDK installs it


class IxrtEngine(VendorAdapter):
    name: ClassVar[str] = "ixrt"

    def sdk(self) -> ModuleType:
        trt = super().sdk()
        if builder() is None:
            raise CaseError(missing_sdk(self.name, self.options.device.vendor,
                                        f"its engine builder {BUILDER} is not on PATH nor at "
                                        f"{COREX_BIN}"))
        return trt

    def prepare(self, model: nn.Module, example_inputs: Sequence[torch.Tensor],
                precision: str) -> Runner:
        trt = self.sdk()
        path = onnx_file(model, example_inputs, self.options, "fp32")
        contexts = {size: self._context(trt, str(path), size, precision)
                    for size in sorted({self.options.batch_size, 1})}
        return _runner(trt, contexts, self.options.device.device)

    def _context(self, trt: Any, path: str, batch: int, precision: str) -> Any:
        engine_file = Path(self.options.work_dir) / f"ixrt_b{batch}_{precision}.engine"
        _run_builder(self._builder_argv(path, engine_file, batch, precision))
        logger = trt.Logger(trt.Logger.WARNING)
        engine = trt.Runtime(logger).deserialize_cuda_engine(engine_file.read_bytes())
        if engine is None:
            raise EngineBuildError(f"IxRT could not read back {engine_file}")
        return engine.create_execution_context()

    def _builder_argv(self, path: str, engine_file: Path, batch: int, precision: str) -> list[str]:
        shapes = ",".join(f"{name}:{'x'.join(str(d) for d in [batch, *shape[1:]])}"
                          for name, shape, _ in onnx_inputs(path, load_onnx(self.name)))
        argv = [str(builder()), f"--onnx={path}", f"--save_engine={engine_file}",
                f"--minShapes={shapes}", f"--optShapes={shapes}", f"--maxShapes={shapes}"]
        return argv + (["--precision", "fp16"] if precision == "fp16" else [])


def builder() -> str | None:
    return shutil.which(BUILDER) or (COREX_BIN if Path(COREX_BIN).is_file() else None)


def _run_builder(argv: list[str]) -> None:
    done = subprocess.run(argv, check=False, capture_output=True, text=True)
    if done.returncode != 0:
        raise EngineBuildError(f"{BUILDER} exited {done.returncode}: "
                               f"{(done.stderr or done.stdout).strip()[-500:]}: check the ONNX "
                               "graph, or use engine eager")


def _runner(trt: Any, contexts: dict[int, Any], device: torch.device) -> Runner:
    def run(*inputs: torch.Tensor) -> torch.Tensor:
        size = int(inputs[0].shape[0])
        if size not in contexts:
            raise CaseError(f"engine 'ixrt' was built for batch sizes {sorted(contexts)}, not "
                            f"{size}: set batch_size so the data set splits into whole batches")
        context = contexts[size]
        engine = context.engine
        tensors = [t.float().contiguous() for t in inputs]
        for index, tensor in enumerate(tensors):
            context.set_binding_shape(index, tuple(tensor.shape))
        out_index = len(tensors)
        dtype = torch.from_numpy(np.zeros(1, trt.nptype(engine.get_binding_dtype(out_index)))).dtype
        out = torch.empty(tuple(context.get_binding_shape(out_index)), dtype=dtype, device=device)
        if not context.execute_v2([t.data_ptr() for t in tensors] + [out.data_ptr()]):
            raise EngineBuildError("IxRT's execute_v2 reported a failure")
        return out

    return run
