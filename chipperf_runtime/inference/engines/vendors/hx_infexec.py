"""Engine ``hx_infexec``: Hexaflake's inference executor, ``tcinfer.TcInfer`` over
``libtcinfer.so``, running an engine file Hexaflake's tools compiled.

FlagPerf (FlagOpen/FlagPerf@1b5a0303) drives it only for llama2_7b_mmlu
(``inference/inference_engine/hexaflake/hx_infexec.py``), from an engine file (``.ngf``) built
beforehand; it shows no ONNX-to-engine step, so none is taken here either: the engine file is
``engine_options.engine_file`` (compiled for the model, the precision and a static batch by
Hexaflake's compiler), and chipperf's ONNX export is not used. The calls are the ones FlagPerf
makes: ``TcInfer(engine_file, max_batch_size=..., dev_ids=[...])``, ``get_static_batch()``,
``set_batch_size(jobs)``, ``set_input(job, name, array)`` per job of one static batch,
``run(jobs, 0, 0)``, ``get_output_by_binding_index(job, binding, 0)`` with the output binding
after the inputs (FlagPerf reads binding 3 after its 3 inputs). The precision is the engine
file's: chipperf cannot read it, so the configured one is taken as said. Inputs and outputs
are host arrays. Not run by chipperf: no Hexaflake card or tcinfer here
(inference/hexaflake/README.md).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar, Sequence

import numpy as np
import torch
from torch import nn

from chipperf_runtime.inference.engines.base import Runner
from chipperf_runtime.inference.engines.vendors.adapter import VendorAdapter
from chipperf_runtime.inference.engines.vendors.sdk import HostCall, HostShapes
from chipperf_runtime.inference.errors import CaseError

ENGINE_FILE_HOW = ("the path of a ResNet-50 engine file compiled by Hexaflake's tools for this "
                   "precision with static batch 1 (the single-stream queries are batch 1; an "
                   "offline batch runs as batch_size jobs of one); FlagPerf ships none")


class HxInfexecEngine(VendorAdapter):
    name: ClassVar[str] = "hx_infexec"
    supported: ClassVar[tuple[str, ...]] = ("fp32", "fp16", "bf16")

    def check(self, precision: str) -> None:
        super().check(precision)
        path = Path(self.required_option("engine_file", ENGINE_FILE_HOW))
        if not path.is_file():
            raise CaseError(f"engine_options.engine_file {path} does not exist: give "
                            f"{ENGINE_FILE_HOW}")

    def prepare(self, model: nn.Module, example_inputs: Sequence[torch.Tensor],
                precision: str) -> Runner:
        tcinfer = self.sdk()
        engine = tcinfer.TcInfer(str(self.required_option("engine_file", ENGINE_FILE_HOW)),
                                 max_batch_size=self.options.batch_size,
                                 dev_ids=[self.options.device.device.index or 0])
        names = list(self.option("input_names", self.options.input_names))
        call = _jobs(engine, names, int(engine.get_static_batch()))
        return HostShapes(lambda batch: call, self.options.device).prepare(
            [self.options.batch_size, 1])


def _jobs(engine: Any, names: Sequence[str], static: int) -> HostCall:
    def run(arrays: Sequence[np.ndarray]) -> np.ndarray:
        total = arrays[0].shape[0]
        if total % static:
            raise CaseError(f"engine 'hx_infexec': the engine file's static batch is {static}, "
                            f"which does not divide a batch of {total}: set batch_size to a "
                            f"multiple of {static}")
        jobs = total // static
        engine.set_batch_size(jobs)
        for job in range(jobs):
            for name, array in zip(names, arrays):
                engine.set_input(job, name, array[job * static:(job + 1) * static])
        engine.run(jobs, 0, 0)
        return np.concatenate([np.asarray(engine.get_output_by_binding_index(job, len(names), 0))
                               for job in range(jobs)])

    return run
