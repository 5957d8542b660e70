"""The serving scenarios, run by MLPerf LoadGen on any ``Generator`` (``loadgen_sut``).

- offline: LoadGen issues every query at once; the SUT runs batches of ``batch_size``.
- single stream: LoadGen issues the next query when the previous one completed.
- server: LoadGen issues queries as a Poisson process at the target rate (its
  ``server_target_qps``); whenever the engine is free the SUT takes up to ``batch_size`` of
  those that have arrived. ``search`` runs rates in ascending order and stops at the first
  whose token-latency constraints (TTFT and TPOT at the bound's percentile, LoadGen's check)
  fail.

Each scenario's figures are LoadGen's (its summary log: samples and tokens per second, TTFT,
TPOT and latency percentiles, VALID or INVALID and why), with chipperf's own counts of what
the SUT served (requests, prompt and output tokens, time in the engine and in the harness)
and each request's token rate beside them. LoadGen's logs stay in ``<logs>/<scenario>``.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional, Sequence

from chipperf_runtime.inference.llm import loadgen_sut
from chipperf_runtime.inference.llm.engines import Generator
from chipperf_runtime.inference.llm.prompts import Request
from chipperf_runtime.inference.llm.serving import meets_bound, summarize

# LoadGen's statistics a scenario takes over chipperf's own (per-request times of the SUT)
FROM_LOADGEN = ("ttft_ms", "tpot_ms", "latency_ms")


def offline(gen: Generator, requests: Sequence[Request], batch_size: int,
            limits: loadgen_sut.Limits, logs: Path) -> dict:
    return figures(loadgen_sut.run("offline", gen, requests, batch_size, limits,
                                   logs / "offline"), logs.parent)


def single_stream(gen: Generator, requests: Sequence[Request], limits: loadgen_sut.Limits,
                  logs: Path) -> dict:
    return figures(loadgen_sut.run("single_stream", gen, requests, 1, limits,
                                   logs / "single_stream"), logs.parent)


def server(gen: Generator, requests: Sequence[Request], batch_size: int, rate: float,
           limits: loadgen_sut.Limits, logs: Path) -> dict:
    return figures(loadgen_sut.run("server", gen, requests, batch_size, limits,
                                   logs / f"server_{rate:g}", target_qps=rate), logs.parent)


def figures(measured: loadgen_sut.Measured, root: Path) -> dict:
    """LoadGen's figures over chipperf's count of the same run."""
    own, lg = summarize(measured.run), measured.summary
    out: dict[str, Any] = dict(own)
    for key in FROM_LOADGEN:
        if lg.get(key):
            out[key] = {**lg[key], "count": own["requests"]}
    rate = lg.get("samples_per_s") or lg.get("queries_per_s")
    out["requests_per_s"] = rate if rate is not None else own["requests_per_s"]
    out["tokens_per_s"] = lg.get("tokens_per_s") or own["tokens_per_s"]
    out["loadgen"] = verdict(measured, root)
    return out


def verdict(measured: loadgen_sut.Measured, root: Path) -> dict:
    lg = measured.summary
    tokens_from = "loadgen" if lg.get("tokens_per_s") else \
        "chipperf: output tokens / span (LoadGen's summary has no tokens/s in this scenario)"
    return {"scenario": lg.get("scenario"), "result": lg.get("result"), "valid": lg["valid"],
            "invalid_because": lg["invalid_because"], "checks": lg["checks"],
            "early_stopping": lg["early_stopping"], "recommendations": lg["recommendations"],
            "judged_by": lg.get("judged_by"), "problems": list(measured.problems),
            "tokens_per_s_from": tokens_from,
            "first_token": "as it reached the host (the engine's first-token hook)"
            if measured.first_token_hook else
            "at completion: this engine has no first-token hook, TTFT is the whole latency",
            "logs": str(measured.logs.relative_to(root))}


@dataclass(frozen=True)
class Bound:
    ttft_ms: float
    tpot_ms: float
    percentile: int

    def describe(self) -> dict:
        return {"ttft_ms": self.ttft_ms, "tpot_ms": self.tpot_ms, "percentile": self.percentile,
                "checked_by": "LoadGen (use_token_latencies: ttft_latency, tpot_latency)"}


def search(gen: Generator, requests: Sequence[Request], batch_size: int,
           rates: Sequence[float], limits: loadgen_sut.Limits, bound: Bound, logs: Path) -> dict:
    """Each rate in ascending order until one misses the bound; the highest that met it."""
    results: list[dict] = []
    best: Optional[float] = None
    for rate in sorted(rates):
        point = server(gen, requests, batch_size, rate, limits, logs)
        ok = bool(point["loadgen"]["checks"].get("latency_constraints"))
        why = "" if ok else _why_not(point, bound)
        results.append({"target_rate": rate, "meets_bound": ok, "why_not": why or None, **point})
        if not ok:
            break
        best = rate
    valid = [r["target_rate"] for r in results if r["loadgen"]["valid"]]
    return {"bound": bound.describe(), "rates": results, "max_rate_meeting_bound": best,
            "max_valid_rate": max(valid) if valid else None,
            "note": "rates above the first that missed the bound are not run"
            if results and not results[-1]["meets_bound"] else None}


def _why_not(point: dict, bound: Bound) -> str:
    _, detail = meets_bound(point, bound.ttft_ms, bound.tpot_ms, bound.percentile)
    return "LoadGen: latency constraints not met" + (f" ({detail})" if detail else "")
