"""A training case's run length, checked at plan time from its resolved config (the case's
``_base.py`` defaults under the vendor config's values).

- ``run_mode_problems``: a performance run with nothing to time, or whose ``max_steps`` stops
  it before its warm-up + timed steps, or an unknown ``run_mode``: one message each, before
  any image is built: the rules of the case's own driver
  (``chipperf_runtime/training/driver/perfmode.py: run_mode_from``), which refuses the same
  input in the container.
- ``deadline_warning``: a convergence run whose ``max_steps`` fits the round deadline only if
  every optimizer step takes under ``SLOW_STEP_S``. Plan time knows no step time, so this
  is arithmetic on the config, said as such: a round its deadline cuts reports only the
  throughput of the steps it completed, not converged. Epoch-bounded runs (``max_steps``
  None) are not judged: their step count depends on the data on the hosts.

Pure: mappings in, strings out.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from chipperf_runtime.training.driver.errors import ConfigError
from chipperf_runtime.training.driver.perfmode import run_mode_from
from chipperf_runtime.training.imagecls.datamode import data_mode_problem

PERFORMANCE, CONVERGENCE = "performance", "convergence"
SLOW_STEP_S = 0.1     # a step time a full-size model's optimizer step rarely beats


def _count(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def run_mode_problems(knobs: Mapping[str, Any], where: str) -> list[str]:
    """The case's own run-mode rules (chipperf_runtime's run_mode_from), at plan time."""
    try:
        run_mode_from(knobs)
    except ConfigError as exc:
        return [f"{where}: {exc}"]
    return []


def data_mode_problems(knobs: Mapping[str, Any], overrides: Mapping[str, Any], where: str) -> list[str]:
    """An image case's ``data_mode`` it cannot run (the case's own rules, imagecls.datamode),
    with the run's OVERRIDES over its knobs, at plan time; [] for a case without the knob."""
    if "data_mode" not in knobs:
        return []
    merged = {**knobs, **overrides}
    problem = data_mode_problem(merged["data_mode"], merged.get("run_mode", CONVERGENCE))
    return [f"{where}: {problem}"] if problem else []


def deadline_warning(knobs: Mapping[str, Any], timeout_s: float) -> str | None:
    if knobs.get("run_mode", CONVERGENCE) == PERFORMANCE:
        return None
    max_steps = _count(knobs.get("max_steps"))
    if not max_steps or not timeout_s or timeout_s / max_steps >= SLOW_STEP_S:
        return None
    per_step_ms = 1000 * timeout_s / max_steps
    return (f"convergence mode may train up to max_steps = {max_steps} optimizer steps; the "
            f"round deadline of {timeout_s:.0f} s holds them only at {per_step_ms:.1f} ms a "
            f"step or less (a full-size model's step rarely takes under "
            f"{SLOW_STEP_S * 1000:.0f} ms): a round the deadline cuts reports the throughput "
            "of its completed steps, not converged. For a throughput figure set run_mode = "
            "\"performance\" with perf_warmup_steps and timed_steps; for convergence raise "
            "round_timeout_s")
