"""The served mode's FINISHED record from a finished sweep (pure: no framework import).

``throughput.raw`` is the sweep's highest output tokens/s; ``latency_ms`` the lowest
concurrency's end-to-end latency; ``metric`` the share of planned points whose tokens equal
the server's own /metrics counts; ``converged`` when every planned point succeeded.
"""

from __future__ import annotations

import time
from typing import Any, Mapping


def finished_record(result: dict, config: Mapping[str, Any], params: int, precision: str,
                    window_s: float, start: float) -> dict:
    points = result["points"]
    good = [p for p in points if p["status"] == "succeeded"]
    best = max(good, key=lambda p: p["output_tokens_per_s"] or 0.0, default=None)
    rate = best["output_tokens_per_s"] if best else None
    return {
        "e2e_time_s": time.perf_counter() - start, "train_time_s": window_s,
        "train_no_eval_time_s": window_s, "work_unit": "tokens",
        "work_done": sum(p["total_output_tokens"] for p in good),
        "window_work": sum(p.get("total_output_tokens", 0) for p in points),
        "throughput": {"raw": rate, "pure_compute": rate, "unit": "tokens/s",
                       "note": "the sweep's highest output tokens/s (all chips); the server "
                               "exposes no engine-only time, so pure_compute repeats it"},
        "latency_ms": single_user_latency(good),
        "engine": result["engine"], "precision": precision, "dtype": precision,
        "device": "served", "world_size": int(result["chips"]),
        "metric": counter_metric(points, result["planned"]),
        "reference": {"max_abs_diff": None, "mean_abs_diff": None, "bound": None,
                      "within_bound": True, "compared": "not measured: the served engine "
                      "exposes no logits"},
        "converged": len(good) == result["planned"] and guard_passed(result),
        "flops_per_unit": flops_per_output_token(config, params, good),
        "peak_memory_bytes": None,
        "peak_memory_source": "not measured: the engine runs in its own server process",
        "serving": {"sweep": result},
    }


def single_user_latency(good: list[dict]) -> dict:
    """E2E latency of the lowest-concurrency point (one user, when 1 is swept)."""
    swept = [p for p in good if p.get("concurrency") is not None]   # not the fixed rates
    if not swept:
        return {"p50": None, "p90": None, "p99": None, "count": 0}
    first = min(swept, key=lambda p: p["concurrency"])
    return {**first["e2el_ms"], "count": first["completed"], "concurrency": first["concurrency"]}


def counter_metric(points: list[dict], planned: int) -> dict:
    agreed = sum(all(c["agree"] for c in p.get("server_counters", {"x": {"agree": False}}).values())
                 for p in points)
    return {"name": "server_counter_agreement", "value": agreed / planned if planned else 0.0,
            "target": 1.0, "higher_is_better": True,
            "note": "share of planned points whose prompt and output tokens equal the server's "
                    "own /metrics counts"}


def flops_per_output_token(config: Mapping[str, Any], params: int, good: list[dict]) -> float:
    """2 x (parameters - embedding) + 4 x layers x hidden x mean context per processed token,
    times processed / output tokens over the measured points."""
    embedding = int(config["vocab_size"]) * int(config["hidden_size"])
    inputs = sum(p["total_input_tokens"] for p in good)
    outputs = sum(p["total_output_tokens"] for p in good)
    if not outputs:
        return 0.0
    mean_context = (inputs + outputs / 2.0) / max(sum(p["completed"] for p in good), 1)
    per_token = 2.0 * (params - embedding) + 4.0 * int(config["num_layers"]) * int(
        config["hidden_size"]) * mean_context
    return per_token * (inputs + outputs) / outputs


def slo_record(points: list[dict], goodput: tuple[str, ...]) -> dict[str, Any] | None:
    """The sweep's SLO: its limits, the points where every completed request met it, and a
    sentence when none did (None when no SLO is set)."""
    if not goodput:
        return None
    meeting = [p["point"] for p in points if p.get("status") == "succeeded"
               and (p.get("slo_met_share") or 0.0) >= 1.0 - 1e-9]
    best = max((p.get("goodput_requests_per_s") or 0.0 for p in points), default=0.0)
    record: dict[str, Any] = {"limits": list(goodput), "points_meeting": meeting,
                              "best_goodput_requests_per_s": best}
    if not meeting:
        record["note"] = (f"no point meets the SLO ({', '.join(goodput)} ms): at every point "
                          "some requests were slower; the best point served "
                          f"{best:.4g} requests/s within it")
    return record


def add_cost(points: list[dict], chip_hour_price: float | None, currency: str) -> None:
    """Per point, the price of a million output tokens at its output tokens/s per chip:
    price per chip-hour / 3600 / (tokens/s per chip) x 1e6 (the user's price; none built in)."""
    if chip_hour_price is None:
        return
    for p in points:
        rate = p.get("output_tokens_per_s_per_chip")
        p["cost_per_million_output_tokens"] = (chip_hour_price / 3600.0 / rate * 1e6
                                               if rate else None)
        p["cost_currency"] = currency


def guard_passed(result: Mapping[str, Any]) -> bool:
    """False only when the accuracy guard ran and the served tokens disagreed."""
    return (result.get("accuracy_guard") or {}).get("agree") is not False
