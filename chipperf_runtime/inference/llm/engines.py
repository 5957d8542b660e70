"""LLM generation engines: ``transformers`` generate, eager or with torch.compile, and vLLM.

An engine is made for the vendor's device (``chipperf_runtime.device``); ``check(precision)`` stops
before anything is built when it cannot run there, with the fix; ``prepare(model, precision,
max_len)`` returns a ``Generator``: ``generate(requests)`` runs them as one batch (greedy,
each to its own output length) and returns each request's tokens and the times its first and
last tokens reached the host; ``logits(ids)`` is a teacher-forced forward for the deviation
from the reference (None where the engine cannot give logits).
"""

from __future__ import annotations

import contextlib
import copy
import shutil
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Optional, Protocol, Sequence

import torch

from chipperf_runtime.device.torch import TorchDevice
from chipperf_runtime.inference.engine_limits import ALIASES, NVIDIA_SERVED
from chipperf_runtime.inference.engines.base import DTYPES
from chipperf_runtime.inference.engines.torch_engines import torch_precisions
from chipperf_runtime.inference.errors import CaseError, EngineBuildError
from chipperf_runtime.inference.llm.completion import Accounting, Completion
from chipperf_runtime.inference.llm.model import PAD
from chipperf_runtime.inference.llm.prompts import Request
from chipperf_runtime.inference.llm.served.choice import SERVED_ENGINES
from chipperf_runtime.inference.llm.settings import SDPA_BACKENDS


class Generator(Protocol):
    accounting: Accounting

    def generate(self, requests: Sequence[Request]) -> list[Completion]: ...

    def logits(self, ids: torch.Tensor) -> Optional[torch.Tensor]: ...


class Engine(Protocol):
    @property
    def name(self) -> str: ...

    def check(self, precision: str) -> None: ...

    def prepare(self, model: torch.nn.Module, precision: str, max_len: int) -> Generator: ...


class StepClock:
    """A ``transformers`` streamer: the time each step's tokens reached the host (the first
    ``put`` is the prompt; generate hands every later one over as a host tensor); ``on_first``
    is called as the first output token arrives (MLPerf LoadGen's FirstTokenComplete)."""

    def __init__(self, on_first: Optional[Callable[[], None]] = None) -> None:
        self.times: list[float] = []
        self.spent = 0.0
        self.on_first = on_first

    def put(self, value: torch.Tensor) -> None:
        now = time.perf_counter()
        self.times.append(now)
        if len(self.times) == 2 and self.on_first is not None:
            self.on_first()
        self.spent += time.perf_counter() - now

    def end(self) -> None:
        pass


def left_padded(requests: Sequence[Request], device: torch.device) -> tuple[torch.Tensor, torch.Tensor]:
    width = max(len(r.prompt) for r in requests)
    ids = torch.full((len(requests), width), PAD, dtype=torch.long)
    mask = torch.zeros((len(requests), width), dtype=torch.long)
    for row, r in enumerate(requests):
        ids[row, width - len(r.prompt):] = torch.tensor(r.prompt, dtype=torch.long)
        mask[row, width - len(r.prompt):] = 1
    return ids.to(device), mask.to(device)


@dataclass
class TransformersGenerator:
    module: Any                   # a transformers causal LM
    device: TorchDevice
    accounting: Accounting = field(default_factory=Accounting)
    pad_batches_to: int = 0       # compiled: pad each batch to a size of batch_sizes(this)
    sdpa_backends: Sequence[str] = ()   # names of SDPA_BACKENDS; (): torch's choice
    on_first_token: Optional[Callable[[], None]] = None   # called as a batch's first token lands

    def generate(self, requests: Sequence[Request]) -> list[Completion]:
        begin = time.perf_counter()
        rows = list(requests)
        if self.pad_batches_to:  # one compiled graph per size: fill up with copies
            size = next(n for n in batch_sizes(self.pad_batches_to) if n >= len(rows))
            rows += [rows[0]] * (size - len(rows))
        ids, mask = left_padded(rows, self.device.device)
        clock = StepClock(self.on_first_token)
        start = time.perf_counter()
        with attention(self.sdpa_backends), torch.inference_mode():
            out = self.module.generate(input_ids=ids, attention_mask=mask, do_sample=False,
                                       max_new_tokens=max(r.max_new_tokens for r in requests),
                                       streamer=clock)
        done = time.perf_counter()
        width = ids.shape[1]
        tokens = out[:, width:].cpu().tolist()
        steps = clock.times[1:]
        result = [Completion(r, tuple(row[:r.max_new_tokens]), start, steps[0],
                             steps[r.max_new_tokens - 1]) for r, row in zip(requests, tokens)]
        self.accounting.engine_s += done - start - clock.spent
        self.accounting.harness_s += time.perf_counter() - begin - (done - start) + clock.spent
        return result

    def logits(self, ids: torch.Tensor) -> torch.Tensor:
        with attention(self.sdpa_backends), torch.inference_mode():
            return self.module(input_ids=ids).logits


def attention(backends: Sequence[str]) -> contextlib.AbstractContextManager:
    """Restricts torch's scaled_dot_product_attention to ``backends`` (names of
    SDPA_BACKENDS); none named: torch picks among all it has."""
    if not backends:
        return contextlib.nullcontext()
    from torch.nn.attention import SDPBackend, sdpa_kernel

    return sdpa_kernel([getattr(SDPBackend, SDPA_BACKENDS[b]) for b in backends])


@dataclass(frozen=True)
class TransformersEngine:
    """``generate`` of ``transformers`` on a private copy of the model in the precision;
    ``compiled``: a static KV cache of ``max_len`` and the decoding step under torch.compile
    (transformers' own compiled-decode path); a batch is padded with copies of its first
    request to the next of ``batch_sizes`` (1, 2, 4, ... batch_size), so there is one graph
    per such size, all built in the warm-up; the copies' outputs are dropped."""

    device: TorchDevice
    compiled: bool = False
    compile_mode: str = "default"
    batch_size: int = 1
    sdpa_backends: Sequence[str] = ()

    @property
    def name(self) -> str:
        return "compile" if self.compiled else "eager"

    def check(self, precision: str) -> None:
        supported = torch_precisions(self.device)
        if precision not in supported:
            raise CaseError(f"engine {self.name!r} cannot run precision {precision!r} on "
                            f"{self.device.type} (vendor {self.device.vendor}): set precision to "
                            f"one of {', '.join(supported)}")
        if self.compiled and not self.device.is_accelerator and not (
                shutil.which("g++") or shutil.which("c++")):
            raise CaseError("engine 'compile' on cpu needs a C++ compiler (Inductor builds C++ "
                            "kernels): install g++ and python3-dev in the image, or use engine "
                            "eager")

    def prepare(self, model: torch.nn.Module, precision: str, max_len: int) -> Generator:
        module: Any = copy.deepcopy(model).to(dtype=DTYPES[precision]).eval()
        if self.compiled:
            from transformers import CompileConfig

            config = module.generation_config
            config.cache_implementation = "static"
            config.max_cache_len = max_len
            config.compile_config = CompileConfig(fullgraph=False, dynamic=False,
                                                  mode=self.compile_mode)
            # transformers compiles the decoding step itself on some devices; on all, on request
            config.compile_config._compile_all_devices = True
        return TransformersGenerator(module, self.device,
                                     pad_batches_to=self.batch_size if self.compiled else 0,
                                     sdpa_backends=self.sdpa_backends)


def batch_sizes(batch_size: int) -> list[int]:
    """1, 2, 4, ... below ``batch_size``, then ``batch_size``."""
    sizes = [1 << k for k in range(batch_size.bit_length()) if 1 << k < batch_size]
    return sizes + [batch_size]


def warm_up(generator: Generator, requests: Sequence[Request], batch_size: int,
            engine: str) -> None:
    """Each of ``batch_sizes`` once, so lazy builds (compile) happen before timing."""
    if not requests:
        return
    try:
        for size in batch_sizes(batch_size):
            generator.generate([requests[i % len(requests)] for i in range(size)])
    except CaseError:
        raise
    except Exception as exc:  # noqa: BLE001 - built, but cannot run these inputs
        raise EngineBuildError(f"engine {engine!r} built but failed on its first requests: "
                               f"{exc}: try another precision or engine") from exc


Factory = Callable[[TorchDevice, Any], Engine]


def _vllm(device: TorchDevice, settings: Any) -> Engine:
    from chipperf_runtime.inference.llm.nvidia.vllm_engine import VllmEngine

    return VllmEngine(device, settings.batch_size, settings.seed,
                      settings.vllm_gpu_memory_utilization)


ENGINES: dict[str, Factory] = {
    "eager": lambda device, s: TransformersEngine(device, sdpa_backends=backends_of(s)),
    "compile": lambda device, s: TransformersEngine(device, True, s.compile_mode, s.batch_size,
                                                    backends_of(s)),
    "vllm": _vllm,
}


def backends_of(settings: Any) -> tuple[str, ...]:
    """The settings' ``sdpa_backends`` as a tuple of names; () for "all" (or none set)."""
    chosen = str(getattr(settings, "sdpa_backends", "all"))
    return () if chosen == "all" else tuple(chosen.split(","))


def get_engine(name: str, device: TorchDevice, settings: Any) -> Engine:
    if name.lower() in ALIASES:
        key = ALIASES[name.lower()]
        raise CaseError(f"engine {name!r} is not an engine name: {NVIDIA_SERVED[key][0]} serves "
                        f"as engine {key!r} (its OpenAI server, vendor nvidia)")
    if name not in ENGINES:
        raise CaseError(f"engine {name!r} is unknown for LLM cases: set engine to one of "
                        f"{', '.join(sorted([*ENGINES, *SERVED_ENGINES]))} in the configuration")
    return ENGINES[name](device, settings)
