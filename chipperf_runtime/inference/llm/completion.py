"""What a generator returns per request, and where its time went (shared by every engine,
vLLM's included, so that no engine module imports another)."""

from __future__ import annotations

from dataclasses import dataclass

from chipperf_runtime.inference.llm.prompts import Request


@dataclass(frozen=True)
class Completion:
    request: Request
    tokens: tuple[int, ...]
    start: float          # the engine got the batch (perf_counter seconds)
    first: float          # first output token on the host
    last: float           # last output token on the host


@dataclass
class Accounting:
    """Where a generator's time went: the engine's own calls, and the harness around them."""

    engine_s: float = 0.0
    harness_s: float = 0.0
