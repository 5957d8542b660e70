"""vLLM as an LLM engine, on NVIDIA GPUs (device ``cuda``) with the ``vllm`` package.

The model (the case's random weights, cast to the precision) is saved with
``save_pretrained`` into the scratch dir and loaded by ``vllm.LLMEngine``; requests go in as
token ids (no tokenizer in vLLM), greedy, ``ignore_eos`` so each runs to its drawn output
length; ``step()`` is called until the batch is done and the time each request's first and
last tokens came out is taken on the host. vLLM schedules the batch itself (continuous
batching, paged KV cache). Logits are not exposed, so the deviation from the reference is
not measured for vllm (greedy token agreement is). Not exercised on this project's CI machine
(no GPU): the check below says so on any other device.
"""

from __future__ import annotations

import copy
import tempfile
import time
from dataclasses import dataclass, field
from typing import Any, Optional, Sequence

import torch

from chipperf_runtime.device.torch import TorchDevice
from chipperf_runtime.inference.engines.base import DTYPES
from chipperf_runtime.inference.errors import CaseError, EngineBuildError
from chipperf_runtime.inference.llm.completion import Accounting, Completion
from chipperf_runtime.inference.llm.prompts import Request

VLLM_DTYPES = {"fp32": "float32", "bf16": "bfloat16", "fp16": "float16"}


@dataclass
class VllmGenerator:
    engine: Any
    sampling: Any
    accounting: Accounting = field(default_factory=Accounting)
    counter: int = 0

    def generate(self, requests: Sequence[Request]) -> list[Completion]:
        start = time.perf_counter()
        ids = {}
        for r in requests:
            self.counter += 1
            ids[str(self.counter)] = r
            params = self.sampling.clone()
            params.max_tokens = r.max_new_tokens
            self.engine.add_request(str(self.counter), {"prompt_token_ids": list(r.prompt)},
                                    params)
        first: dict[str, float] = {}
        done: dict[str, Completion] = {}
        while len(done) < len(requests):
            outputs = self.engine.step()
            now = time.perf_counter()
            for out in outputs:
                if out.request_id in ids and out.outputs and out.outputs[0].token_ids:
                    first.setdefault(out.request_id, now)
                    if out.finished:
                        done[out.request_id] = Completion(
                            ids[out.request_id], tuple(out.outputs[0].token_ids), start,
                            first[out.request_id], now)
        self.accounting.engine_s += time.perf_counter() - start
        return [done[k] for k in ids]

    def logits(self, ids: torch.Tensor) -> Optional[torch.Tensor]:
        return None


@dataclass(frozen=True)
class VllmEngine:
    device: TorchDevice
    batch_size: int
    seed: int
    gpu_memory_utilization: float

    @property
    def name(self) -> str:
        return "vllm"

    def check(self, precision: str) -> None:
        if self.device.type != "cuda":
            raise CaseError(f"engine 'vllm' runs on NVIDIA GPUs (device cuda); vendor "
                            f"{self.device.vendor} names device {self.device.type}, which vLLM "
                            "does not serve here: use engine eager or compile")
        try:
            import vllm  # noqa: F401
        except ImportError as exc:
            raise CaseError(f"engine 'vllm' needs the vllm package, which does not import in "
                            f"this image ({exc}): add vllm to the vendor image, or use engine "
                            "eager or compile") from exc
        if precision not in VLLM_DTYPES:
            raise CaseError(f"engine 'vllm' cannot run precision {precision!r}: set one of "
                            f"{', '.join(VLLM_DTYPES)}")

    def prepare(self, model: torch.nn.Module, precision: str, max_len: int) -> VllmGenerator:
        from vllm import EngineArgs, LLMEngine, SamplingParams

        folder = tempfile.mkdtemp(prefix="chipperf-vllm-")
        saved: Any = copy.deepcopy(model).to(DTYPES[precision])  # the fp32 reference stays
        saved.save_pretrained(folder)
        args = EngineArgs(model=folder, skip_tokenizer_init=True, dtype=VLLM_DTYPES[precision],
                          seed=self.seed, max_model_len=max_len, max_num_seqs=self.batch_size,
                          gpu_memory_utilization=self.gpu_memory_utilization)
        try:
            engine = LLMEngine.from_engine_args(args)
        except Exception as exc:  # noqa: BLE001 - any failure here is a build failure
            raise EngineBuildError(f"vLLM could not load the model: {exc}: lower "
                                   "vllm_gpu_memory_utilization, or use engine eager") from exc
        return VllmGenerator(engine, SamplingParams(temperature=0.0, ignore_eos=True,
                                                    detokenize=False))
