"""What a served sweep of the transformers engine driven by vLLM's ``bench serve`` must show,
shared by the runtime test (the case entry run locally, tests/runtime/
test_served_transformers_sweep.py) and the e2e test (the same entry in the cpu serving image
on a simulated host, tests/e2e/test_served_llm_e2e.py).

Each check takes the case's FINISHED record and its output dir (the node's dir of a run);
each point's per-request records are read from ``<out>/sweep/<point>.json``.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

OUTPUT_TOKENS = 8        # the cpu configuration's chat shape: 16 in / 8 out
TRANSFORMERS_BY_CONFIG = {"engine": "transformers", "asked": "transformers_server",
                          "why": "engine transformers_server in the configuration"}


def records(out: Path, point: dict) -> dict:
    """vLLM's result JSON of a point, with each request's record (--save-detailed)."""
    return json.loads((out / "sweep" / f"{point['point']}.json").read_text())


def check_measured_points(points: list[dict], out: Path) -> None:
    """Percentiles ordered; every request's output tokens, and the point's totals, equal to
    the server's /metrics; throughput and interactivity from them."""
    for p in points:
        assert p["status"] == "succeeded", p
        for name in ("ttft_ms", "tpot_ms", "itl_ms", "e2el_ms"):
            stats = p[name]
            assert 0 < stats["p50"] <= stats["p90"] <= stats["p99"] and stats["mean"] > 0, (
                name, stats)
        detail = records(out, p)
        assert detail["output_lens"] == [OUTPUT_TOKENS] * p["requests"]
        assert detail["errors"] == [""] * p["requests"]
        assert p["total_output_tokens"] == OUTPUT_TOKENS * p["requests"]
        assert p["server_counters"]["generation_tokens"] == {
            "loadgen": p["total_output_tokens"], "server": p["total_output_tokens"], "agree": True}
        assert p["server_counters"]["prompt_tokens"]["agree"] is True
        assert p["output_tokens_per_s"] == pytest.approx(p["total_output_tokens"]
                                                         / p["duration_s"])
        assert p["tokens_per_s_per_user"] == pytest.approx(1000 / p["tpot_ms"]["p50"])


def met_slo(out: Path, point: dict, ttft_ms: float, tpot_ms: float) -> int:
    """The point's requests within the SLO, recounted from their records as vLLM defines
    them: TTFT, and TPOT = (latency - TTFT) / (output tokens - 1)."""
    detail = records(out, point)
    return sum(ttft * 1000 <= ttft_ms and (latency - ttft) / (n - 1) * 1000 <= tpot_ms
               for ttft, latency, n in zip(detail["ttfts"], detail["latencies"],
                                           detail["output_lens"]))


def check_goodput(sweep: dict, points: list[dict], out: Path, ttft_ms: float,
                  tpot_ms: float) -> None:
    """Goodput is the requests that met the SLO, recounted from each request's record."""
    for p in points:
        met = met_slo(out, p, ttft_ms, tpot_ms)
        assert p["goodput_requests_per_s"] == pytest.approx(met / p["duration_s"]), p
        assert p["slo_met_share"] == pytest.approx(met / p["requests"])
        assert p["slo"] == f"ttft:{ttft_ms:g}, tpot:{tpot_ms:g}"
    slo = sweep["slo"]
    assert slo["limits"] == [f"ttft:{ttft_ms:g}", f"tpot:{tpot_ms:g}"]
    assert slo["points_meeting"] == [p["point"] for p in points
                                     if met_slo(out, p, ttft_ms, tpot_ms) == p["requests"]]
    assert ("note" in slo) == (slo["points_meeting"] == [])


def check_cost(points: list[dict], price: float, currency: str) -> None:
    for p in points:
        assert p["cost_per_million_output_tokens"] == pytest.approx(
            price / 3600 / p["output_tokens_per_s_per_chip"] * 1e6)
        assert p["cost_currency"] == currency


def check_killed_last_point(finished: dict, out: Path, names: list[str]) -> None:
    """The last point failed with the server's log tail, the sweep ended there, the points
    before it are kept in FINISHED and serving_curve.csv, and the guard was not run."""
    sweep = finished["serving"]["sweep"]
    died = sweep["points"][-1]
    assert [p["point"] for p in sweep["points"]] == names
    assert (died["status"], died.get("server_died")) == ("failed", True), died
    assert "serving engine 'transformers' exited (code -9) during this point" in died["why"]
    assert "serving http://" in died["why"]          # the server log's tail
    assert (sweep["planned"], sweep["ended"]) == (len(names), "server died")
    assert sweep["accuracy_guard"] == {"agree": None,
                                       "note": "not run: the server died during the sweep"}
    assert finished["converged"] is False
    with open(out / "serving_curve.csv", newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert [(r["point"], r["status"]) for r in rows] == [
        *((name, "succeeded") for name in names[:-1]), (names[-1], "failed")]


def check_one_generator(sweep: dict) -> None:
    """vLLM's load generator was started once for the whole sweep and imported vLLM once."""
    (start,) = sweep["load_generator"]["starts"]
    assert start["import_s"] > 0 and start["ready_s"] >= start["import_s"], start
    assert "killed" not in start, start


def check_failed_run(run_dir: Path, case_dir: str, point: str, exit_code: int) -> None:
    """A run whose served point failed is no success: its round, case and run read "failed"
    naming the point, the command exits 1, and the summary still holds every point run."""
    record = json.loads((run_dir / "run.json").read_text())
    case = record["cases"][case_dir]
    (entry,) = case["rounds"]
    assert (record["status"], case["status"], entry["status"]) == ("failed",) * 3, case
    named = f"served sweep: 1 point(s) failed: {point} (serving engine "
    assert named in entry["reason"] and named in case["reason"], case
    assert exit_code == 1
    summary = json.loads((run_dir / "summary.json").read_text())
    (result,) = summary["cases"]
    assert result["status"] == "failed" and result["counted"] == []
    points = result["rounds"][0]["serving"]["sweep"]["points"]
    assert points[-1]["point"] == point and points[-1]["status"] == "failed"
    assert all(p["status"] == "succeeded" for p in points[:-1]) and len(points) > 1
    assert named in (run_dir / "summary.md").read_text()
