"""Figures no chip can produce: a share of a peak above 100 %, power over a too-short window.

A share above 100 % (MFU against the spec sheet, MFU against a measured peak, a base/ or
operation/ share of spec peak) means the peak it divides by is wrong, or the work counted is.
Power and energy over a timed window shorter than two monitor intervals rest on one or two
samples. Either way the figure is taken out of the round and its reason becomes an error
(``ERROR_PREFIX``) naming the cause and the fix; the round's problems carry it too, so every
output shows it and ``chipperf check`` fails.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any, Optional

from chipperf.results.compute.schema import CaseResult, RoundResult, label
from chipperf.suites import suite_of
from chipperf_runtime.monitors.command import DEFAULT_INTERVAL_S

ERROR_PREFIX = "ERROR: "
SHARES = ("mfu", "mfu_causal", "mfu_measured", "share_of_peak")
WINDOW_NOTE = "timed_window"   # the reasons key of a window shorter than one monitor interval
MIN_INTERVALS = 2      # a power or energy figure needs a window of at least this many samples
# Power and energy figures of a round -> the monitor whose interval they rest on.
POWER_FIGURES: Mapping[str, str] = {
    "avg_power_w_per_chip": "accel", "peak_power_w_per_chip": "accel",
    "accel_energy_j": "accel", "work_per_joule_accel": "accel",
    "accel_energy_per_item_j": "accel",
    "avg_power_w_per_node": "pwr", "peak_power_w_per_node": "pwr", "energy_j": "pwr",
    "work_per_joule": "pwr", "energy_per_item_j": "pwr",
    "cpu_energy_j": "pwr", "cpu_energy_per_item_j": "pwr"}


@dataclass(frozen=True)
class Where:
    """What the error text names: the round, the vendor module and chip, the suite."""

    rel: str                      # "<case dir>/round<N>"
    vendor: Optional[str]
    chip: Optional[str]
    suite: Optional[str]


def checked_round(result: RoundResult, where: Where, intervals: Mapping[str, float]
                  ) -> RoundResult:
    """``result`` with every share above 100 % and every power figure over a too-short
    window taken out, each replaced by an error reason and a problem."""
    errors = {name: why for name in SHARES if (why := share_error(result, name, where))}
    errors.update(window_errors(result, intervals))
    note = short_window_note(result, intervals)
    if note:
        result = replace(result, reasons={**result.reasons, WINDOW_NOTE: note})
    if not errors:
        return result
    reasons = {**result.reasons, **{k: ERROR_PREFIX + v for k, v in errors.items()}}
    problems = tuple(dict.fromkeys(f"{where.rel}: {label(k)}: {v}" for k, v in errors.items()))
    cleared: dict[str, Any] = dict.fromkeys(errors)
    return replace(result, reasons=reasons, problems=result.problems + problems, **cleared)


def share_error(result: RoundResult, name: str, where: Where) -> str:
    """Why the share ``name`` of ``result`` cannot be (it is above 100 %), or ''."""
    share = getattr(result, name)
    if share is None or share <= 1.0:
        return ""
    pct = f"{share * 100:.2f} %"
    if name == "mfu_measured":
        return _measured_cause(result, pct)
    if name == "share_of_peak":
        return _spec_cause(result, pct, where)
    if name == "mfu_causal":
        return "MFU, causal attention halved: " + _mfu_cause(result, pct, where)
    return _mfu_cause(result, pct, where)


def _sheet(where: Where) -> str:
    module = f"chipperf_runtime/vendors/{where.vendor}.py" if where.vendor else "the vendor module"
    return f"fix the spec sheet in {module} or the chip name ({where.chip or 'not given'})"


def _tflops(flops: float) -> str:
    return f"{flops / 1e12:.4g} TFLOP/s"


def _mfu_cause(result: RoundResult, pct: str, where: Where) -> str:
    peak, dtype = result.peak_flops_per_chip, result.mfu_dtype or result.dtype or "?"
    if peak is None or result.mfu is None:     # FlagPerf's own printed MFU
        return (f"MFU {pct} is above 100 %: the case's own MFU (its 'Theory TFLOPS' "
                f"{result.reported_peak_tflops}) divides by a peak below what it achieved; "
                "fix the case's peak or its FLOP count")
    return (f"MFU {pct} is above 100 %: the spec sheet's {dtype} peak ({_tflops(peak)} per "
            f"chip) is below what was achieved ({_tflops(result.mfu * peak)} per chip): "
            f"{_sheet(where)}, or the case's FLOPs per {result.work_unit or 'unit'} "
            f"({result.flops_per_unit:.4g}) are too high")


def _measured_cause(result: RoundResult, pct: str) -> str:
    peak, share = result.measured_peak_flops_per_chip, result.mfu_measured or 0.0
    if peak is None:
        return f"MFU vs measured peak {pct} is above 100 %: the measured peak is too low"
    return (f"MFU vs measured peak {pct} is above 100 %: the base/ GEMM peak "
            f"({_tflops(peak)} per chip, {result.measured_peak_source}) is below what this "
            f"case achieved ({_tflops(share * peak)} per chip): the base/ run underestimates "
            "the chip (measure computation-<DTYPE> with every core and larger sizes, then "
            "pass that run to --measured-peaks), or the case's FLOPs per unit are too high")


def _spec_cause(result: RoundResult, pct: str, where: Where) -> str:
    value = result.metric.value if result.metric else None
    unit = result.metric.name if result.metric else ""
    if value is None:
        measured, peak = "the measured value", "its peak"
    else:
        measured, peak = f"{value:.4g} {unit}", f"{value / (result.share_of_peak or 1):.4g} {unit}"
    what = f"{result.dtype} " if result.dtype else ""
    fix = _sheet(where) if not suite_of(where.suite).spec_in_case_key else (
        "fix the spec figure in the case key (op:dtype:TFLOPS:provider:chip) or, for a "
        f"memory-bound operator, the bandwidth in {_sheet(where).removeprefix('fix ')}")
    return (f"share of spec peak {pct} is above 100 %: the spec sheet's {what}peak ({peak}) "
            f"is below what was measured ({measured}): {fix}")


def window_errors(result: RoundResult, intervals: Mapping[str, float]) -> dict[str, str]:
    """Power and energy figures of ``result`` whose timed window is shorter than
    ``MIN_INTERVALS`` sampling intervals of the monitor they come from -> why."""
    seconds = _window_s(result)
    if seconds is None:
        return {}
    out = {}
    for name, monitor in POWER_FIGURES.items():
        interval = intervals.get(monitor, DEFAULT_INTERVAL_S)
        if getattr(result, name, None) is not None and seconds < MIN_INTERVALS * interval:
            out[name] = (f"the timed window ({seconds:.3g} s) is shorter than {MIN_INTERVALS} "
                         f"{monitor} monitor intervals ({MIN_INTERVALS} x {interval:g} s): too "
                         "few samples for power or energy; time a longer window (more "
                         "steps or iterations) or set a shorter monitor interval")
    return out


def _window_s(result: RoundResult) -> float | None:
    if result.train_start_ms is None or result.train_end_ms is None:
        return None
    return (result.train_end_ms - result.train_start_ms) / 1000.0


def short_window_note(result: RoundResult, intervals: Mapping[str, float]) -> str:
    """'' or why the timed window is too short to measure: shorter than one monitor interval,
    so no utilisation, memory or power sample need fall inside it."""
    seconds, interval = _window_s(result), intervals.get("cpu", DEFAULT_INTERVAL_S)
    if seconds is None or seconds >= interval:
        return ""
    return (f"the timed window ({seconds:.3g} s) is shorter than one monitor interval "
            f"({interval:g} s): too short to measure utilisation or power over it; time more "
            "work (more requests, steps or iterations) for figures that represent the chip")


def window_notes(case: CaseResult) -> list[str]:
    """'round N: <why its window is too short>' for the one such round of ``case``; one note
    for several ('rounds 1-9: the timed window (0.017-0.45 s) is ...'): a sweep's nine rounds
    would otherwise say it nine times."""
    short = [r for r in case.rounds if WINDOW_NOTE in r.reasons]
    each = [f"round {r.number}: {r.reasons[WINDOW_NOTE]}" for r in short]
    seconds = [_window_s(r) for r in short]
    first = short[0].reasons[WINDOW_NOTE] if short else ""
    if len(short) < 2 or None in seconds or f"({seconds[0]:.3g} s)" not in first:
        return each                     # a note that is not this module's text: kept whole
    known = [s for s in seconds if s is not None]
    low, high = f"{min(known):.3g}", f"{max(known):.3g}"
    span = f"({low} s)" if low == high else f"({low}-{high} s)"
    return [f"{_rounds_text([r.number for r in short])}: "
            f"{first.replace(f'({seconds[0]:.3g} s)', span, 1)}"]


def _rounds_text(numbers: list[int]) -> str:
    """'rounds 1-9' (consecutive) or 'rounds 1, 3, 4'."""
    if numbers == list(range(numbers[0], numbers[0] + len(numbers))):
        return f"rounds {numbers[0]}-{numbers[-1]}"
    return "rounds " + ", ".join(map(str, numbers))


def round_errors(result: RoundResult) -> dict[str, str]:
    """The figures of ``result`` rejected as errors -> the error text (prefix removed)."""
    return {k: v.removeprefix(ERROR_PREFIX) for k, v in result.reasons.items()
            if v.startswith(ERROR_PREFIX)}


def case_errors(case: CaseResult) -> list[str]:
    """'round N: <figure>: <error>' for every rejected figure of ``case``."""
    return [f"round {r.number}: {label(k, case.suite)}: {v}" for r in case.rounds
            for k, v in round_errors(r).items()]


def has_error(case: CaseResult, name: str) -> bool:
    return any(name in round_errors(r) for r in case.rounds)
