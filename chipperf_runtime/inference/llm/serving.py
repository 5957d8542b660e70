"""Serving metrics of one scenario run, from each request's times (pure).

Per request: TTFT = first output token on the host - arrival; TPOT = (last - first) /
(output tokens - 1) (requests of one token have none); latency = last - arrival; its token
rate = output tokens / latency. Per scenario: tokens/s and requests/s over the span from the
first arrival to the last completion, and p50/p90/p99 (linear interpolation between closest
ranks, as everywhere in chipperf), mean, min, max of each per-request figure.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Optional, Sequence

from chipperf_runtime.inference.llm.engines import Completion
from chipperf_runtime.inference.stats import latency_summary


@dataclass(frozen=True)
class Served:
    completion: Completion
    arrival: float        # perf_counter seconds

    @property
    def tokens(self) -> int:
        return len(self.completion.tokens)

    @property
    def ttft_s(self) -> float:
        return self.completion.first - self.arrival

    @property
    def tpot_s(self) -> Optional[float]:
        if self.tokens < 2:
            return None
        return (self.completion.last - self.completion.first) / (self.tokens - 1)

    @property
    def latency_s(self) -> float:
        return self.completion.last - self.arrival


@dataclass(frozen=True)
class ScenarioRun:
    served: tuple[Served, ...]
    engine_s: float                 # inside the engine's calls
    harness_s: float                # the harness's own code around them
    saturated: bool = False
    reason: str = ""

    @property
    def span_s(self) -> float:
        if not self.served:
            return 0.0
        return max(s.completion.last for s in self.served) - min(s.arrival for s in self.served)

    @property
    def output_tokens(self) -> int:
        return sum(s.tokens for s in self.served)

    @property
    def prompt_tokens(self) -> int:
        return sum(len(s.completion.request.prompt) for s in self.served)


def summary(values_ms: Sequence[float]) -> Optional[dict]:
    return latency_summary(values_ms) if values_ms else None


def summarize(run: ScenarioRun) -> dict:
    """The scenario's figures (times in ms, rates per second)."""
    span = run.span_s
    tpots = [s.tpot_s * 1000.0 for s in run.served if s.tpot_s is not None]
    out: dict[str, Any] = {
        "requests": len(run.served), "output_tokens": run.output_tokens,
        "prompt_tokens": run.prompt_tokens, "span_s": span,
        "tokens_per_s": run.output_tokens / span if span > 0 else None,
        "requests_per_s": len(run.served) / span if span > 0 else None,
        "ttft_ms": summary([s.ttft_s * 1000.0 for s in run.served]),
        "tpot_ms": summary(tpots),
        "latency_ms": summary([s.latency_s * 1000.0 for s in run.served]),
        "request_tokens_per_s": summary([s.tokens / s.latency_s for s in run.served
                                         if s.latency_s > 0]),
        "engine_s": run.engine_s, "harness_s": run.harness_s,
        "harness_share": run.harness_s / (run.engine_s + run.harness_s)
        if run.engine_s + run.harness_s > 0 else None,
    }
    if run.saturated:
        out.update(saturated=True, saturation_reason=run.reason)
    return out


def meets_bound(figures: dict, ttft_ms: float, tpot_ms: float, percentile: int) -> tuple[bool, str]:
    """Whether the scenario's p<percentile> TTFT and TPOT are within the bound, and why not."""
    if figures.get("saturated"):
        return False, f"saturated: {figures['saturation_reason']}"
    problems = []
    for name, bound in (("ttft_ms", ttft_ms), ("tpot_ms", tpot_ms)):
        stats = figures.get(name)
        value = None if stats is None else stats.get(f"p{percentile}")
        if value is not None and value > bound:
            problems.append(f"p{percentile} {name[:4].upper()} {value:.1f} ms > {bound:g} ms")
    return not problems, "; ".join(problems)
