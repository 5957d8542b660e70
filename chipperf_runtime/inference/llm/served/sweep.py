"""A concurrency sweep against a running server, every point checked against its /metrics.

For each (shape, concurrency) point: read the server's token counters, send the point to the
sweep's one load-generator process (``generator.py``: vLLM imported once), read them again;
the tokens the generator counted (prompt and output) must equal what the server counted in
between, or the point fails saying by how much. A server that dies during a point fails that
point with the server's log tail and ends the sweep; a generator that hangs past the point's
timeout or exits fails that point with its log, and the next point starts a fresh one; one
that cannot start ends the sweep. Every point measured before is kept.
"""

from __future__ import annotations

import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional, Sequence

from chipperf_runtime.inference.errors import CaseError
from chipperf_runtime.inference.llm.served import loadgen, promtext
from chipperf_runtime.inference.llm.served.generator import GeneratorFailed, LoadGenerator
from chipperf_runtime.inference.llm.served.loadgen import PointSpec
from chipperf_runtime.inference.llm.served.server import ServingProcess

# InferenceMAX's workload shapes (input / output tokens)
SHAPES = {"chat": (1024, 1024), "reasoning": (1024, 8192), "summarisation": (8192, 1024)}


@dataclass(frozen=True)
class SweepSpec:
    points: tuple[PointSpec, ...]
    chips: int
    point_timeout_s: float


@dataclass(frozen=True)
class Rates:
    """Fixed request rates (requests/s) beside the concurrency sweep, ``prompts`` each."""

    rates: Sequence[float] = ()
    prompts: int = 1


def plan_points(shapes: Sequence[loadgen.Shape], concurrencies: Sequence[int],
                prompts_per_concurrency: int, seed: int, rates: Rates = Rates(),
                goodput: tuple[str, ...] = ()) -> tuple[PointSpec, ...]:
    """Per shape: every concurrency, ascending, each sending ``prompts_per_concurrency x
    concurrency`` prompts so every user issues the same number; then every fixed rate,
    ascending."""
    bad = [c for c in concurrencies if not isinstance(c, int) or isinstance(c, bool) or c < 1]
    if bad or not concurrencies:
        raise CaseError(f"serve_concurrency: every value must be a whole number >= 1, got "
                        f"{list(concurrencies)!r}: list the numbers of concurrent users to "
                        "sweep, e.g. [1, 2, 4]")
    points = []
    for shape in shapes:
        points += [PointSpec(shape, c, prompts_per_concurrency * c, seed, goodput=goodput)
                   for c in sorted(concurrencies)]
        points += [PointSpec(shape, None, rates.prompts, seed, float(r), goodput)
                   for r in sorted(rates.rates)]
    return tuple(points)


def read_counters(base_url: str) -> dict[str, Optional[float]]:
    """A Prometheus server's token counters (``ServingProcess.counters`` reads any engine's)."""
    try:
        with urllib.request.urlopen(base_url + "/metrics", timeout=10) as reply:
            return promtext.token_counters(reply.read().decode("utf-8", errors="replace"))
    except (urllib.error.URLError, OSError) as exc:
        raise CaseError(f"the server's metrics endpoint {base_url}/metrics did not answer: "
                        f"{exc}") from exc


def counter_check(figures: dict, before: dict, after: dict) -> dict[str, Any]:
    """The server's own count of the point's tokens beside the load generator's."""
    check: dict[str, Any] = {}
    for ours, theirs in (("total_input_tokens", "prompt_tokens"),
                         ("total_output_tokens", "generation_tokens")):
        if before.get(theirs) is None or after.get(theirs) is None:
            check[theirs] = {"loadgen": figures[ours], "server": None,
                             "agree": False, "why": f"the server exports no {theirs} counter"}
            continue
        counted = int(round(after[theirs] - before[theirs]))
        check[theirs] = {"loadgen": figures[ours], "server": counted,
                         "agree": counted == figures[ours]}
    return check


def measure_point(server: ServingProcess, generator: LoadGenerator, point: PointSpec,
                  spec: SweepSpec, model_dir: Path, out_dir: Path) -> dict[str, Any]:
    name = point.name
    result, log = out_dir / f"{name}.json", out_dir / f"{name}.bench.log"
    base = {"point": name, "shape": point.shape.name, "concurrency": point.concurrency,
            "request_rate": point.rate, "bench_log": str(log), "bench_result": str(result)}
    before = server.counters()
    args = loadgen.bench_args(point, server.spec.base_url, model_dir, result)
    try:
        done = generator.run_point(args, log, spec.point_timeout_s)
    except GeneratorFailed as exc:
        if not server.alive():
            return {**base, "status": "failed", "server_died": True,
                    "why": str(server.died("during this point")), "load_generator": str(exc)}
        return {**base, "status": "failed", "why": str(exc),
                **({"generator_start_failed": True} if exc.start_failed else {})}
    if not server.alive():
        return {**base, "status": "failed", "server_died": True,
                "why": str(server.died("during this point")), "bench_exit_code": done.exit_code}
    if done.exit_code != 0:
        return {**base, "status": "failed", "bench_exit_code": done.exit_code,
                "why": f"vllm bench serve failed ({done.error}); its log ends:\n"
                       + loadgen.log_tail(log)}
    return {**base, **checked_figures(server, point, spec, result, before)}


def checked_figures(server: ServingProcess, point: PointSpec, spec: SweepSpec, result: Path,
                    before: dict) -> dict[str, Any]:
    """The point's figures from its result JSON, checked against the server's counters."""
    figures = loadgen.point_figures(loadgen.read_result(result), point, spec.chips)
    figures.update(load_window(result, figures["duration_s"]))
    check = counter_check(figures, before, server.counters())
    agree = all(c["agree"] for c in check.values())
    status = "succeeded" if agree and figures["failed"] == 0 else "failed"
    why = "" if status == "succeeded" else _why(check, figures)
    return {**figures, "server_counters": check, "status": status,
            **({"why": why} if why else {})}


def load_window(result: Path, duration_s: Optional[float]) -> dict[str, float]:
    """The point's load in wall-clock seconds, for its energy: vLLM's ``duration`` (first
    request sent to last response) ending when it wrote its result (just after the last
    response), so the generator's own start-up before the load is not in it."""
    if not duration_s:
        return {}
    end = result.stat().st_mtime
    return {"start_unix_s": end - duration_s, "end_unix_s": end}


def run_sweep(server: ServingProcess, generator: LoadGenerator, spec: SweepSpec,
              model_dir: Path, out_dir: Path) -> dict[str, Any]:
    """Every point in order; the sweep ends at the first point whose server died or whose
    load generator could not start."""
    out_dir.mkdir(parents=True, exist_ok=True)
    points: list[dict[str, Any]] = []
    for point in spec.points:
        points.append(measure_point(server, generator, point, spec, model_dir, out_dir))
        if points[-1].get("server_died") or points[-1].get("generator_start_failed"):
            break
    return {"points": points, "planned": len(spec.points), "ended": ended(points)}


def ended(points: list[dict[str, Any]]) -> str:
    last = points[-1] if points else {}
    if last.get("server_died"):
        return "server died"
    if last.get("generator_start_failed"):
        return "load generator did not start"
    return "all points run"


def _why(check: dict, figures: dict) -> str:
    parts = [f"{k}: load generator counted {c['loadgen']}, server {c['server']}"
             + (f" ({c['why']})" if c.get("why") else "")
             for k, c in check.items() if not c["agree"]]
    if figures["failed"]:
        parts.append(f"{figures['failed']} of {figures['requests']} requests failed")
    return "; ".join(parts)
