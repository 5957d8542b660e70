"""The figures of the result schema (chipperf.results.compute.schema) by name: each one's
place in a round's result, whether higher is better, its label; which figures each suite's
outputs show and aggregate over rounds; a round's value of one, or why it has none."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

from chipperf.suites import suite_of


class Figured(Protocol):
    """A round's result as the figures read it (schema.RoundResult): its fields by the paths
    of AGGREGATED, and why a figure is absent."""

    @property
    def reasons(self) -> Mapping[str, str]: ...


# Figures aggregated over rounds: name -> (attribute path, higher is better, label).
AGGREGATED: Mapping[str, tuple[str, bool, str]] = {
    "throughput_raw": ("throughput.raw", True, "throughput"),
    "throughput_no_eval": ("throughput.no_eval", True, "throughput (no eval)"),
    "throughput_pure_compute": ("throughput.pure_compute", True, "throughput (pure compute)"),
    "latency_p50_ms": ("latency_ms.p50", False, "latency p50 (ms)"),
    "latency_p90_ms": ("latency_ms.p90", False, "latency p90 (ms)"),
    "latency_p99_ms": ("latency_ms.p99", False, "latency p99 (ms)"),
    "e2e_time_s": ("e2e_time_s", False, "e2e time (s)"),
    "train_time_s": ("train_time_s", False, "train time (s)"),
    "metric_value": ("metric.value", True, "final metric"),
    "reference_max_abs_diff": ("reference.max_abs_diff", False, "max |diff| vs reference"),
    "reference_mean_abs_diff": ("reference.mean_abs_diff", False, "mean |diff| vs reference"),
    "mfu": ("mfu", True, "MFU"),
    "mfu_causal": ("mfu_causal", True, "MFU (causal attention halved)"),
    "mfu_measured": ("mfu_measured", True, "MFU vs measured peak"),
    "share_of_peak": ("share_of_peak", True, "share of spec peak"),
    "bare_ratio": ("bare_ratio", True, "ratio to bare torch loop"),
    "numpy_ratio": ("numpy_ratio", True, "ratio to numpy's GEMM"),
    "avg_power_w_per_chip": ("avg_power_w_per_chip", False, "avg power/chip (W)"),
    "peak_power_w_per_chip": ("peak_power_w_per_chip", False, "peak power/chip (W)"),
    "avg_power_w_per_node": ("avg_power_w_per_node", False, "avg power/node (W)"),
    "peak_power_w_per_node": ("peak_power_w_per_node", False, "peak power/node (W)"),
    "energy_j": ("energy_j", False, "energy (J)"),
    "accel_energy_j": ("accel_energy_j", False, "accelerator energy (J)"),
    "cpu_energy_j": ("cpu_energy_j", False, "CPU energy, RAPL (J)"),
    "work_per_joule": ("work_per_joule", True, "work/J"),
    "work_per_joule_accel": ("work_per_joule_accel", True, "work/J (accelerators)"),
    "energy_per_item_j": ("energy_per_item_j", False, "energy/item (J)"),
    "accel_energy_per_item_j": ("accel_energy_per_item_j", False, "accel energy/item (J)"),
    "cpu_energy_per_item_j": ("cpu_energy_per_item_j", False, "CPU energy/item, RAPL (J)"),
    "peak_accel_memory_bytes": ("peak_accel_memory_bytes", False, "peak accel memory"),
    "peak_memory_bytes": ("peak_memory_bytes", False, "peak memory (framework)"),
    "avg_accel_util_pct": ("avg_accel_util_pct", True, "avg accel util (%)"),
    "avg_cpu_util_pct": ("avg_cpu_util_pct", True, "avg CPU util (%)"),
}


# The figures each suite reports; the others' summaries leave them out entirely.
LATENCY = ("latency_p50_ms", "latency_p90_ms", "latency_p99_ms")
PER_ITEM = ("energy_per_item_j", "accel_energy_per_item_j", "cpu_energy_per_item_j")
SPEC_ONLY = ("share_of_peak", "bare_ratio", "numpy_ratio")
_SKIP: Mapping[str, frozenset[str]] = {
    "training": frozenset({*LATENCY, *PER_ITEM, *SPEC_ONLY, "reference_max_abs_diff",
                           "reference_mean_abs_diff"}),
    # inference cases do not report their attention part (FINISHED's attention pair)
    "inference": frozenset({"throughput_no_eval", "mfu_causal", *SPEC_ONLY}),
    # base/ and operation/: the value (metric_value, in TFLOP/s, GB/s...) is the figure;
    # the throughput in FLOP/s or bytes/s beside it, MFU and work/J would repeat it
    "spec": frozenset({"throughput_raw", "throughput_no_eval", "throughput_pure_compute",
                       "reference_max_abs_diff", "reference_mean_abs_diff", "mfu",
                       "mfu_causal", "mfu_measured", "work_per_joule", "work_per_joule_accel", *PER_ITEM,
                       "peak_memory_bytes"}),
}

# Labels that differ by suite. Inference throughput as FlagPerf names it: "whole" counts
# the host-side input pipeline (read, pre-process, copy to the device, post-process),
# "core" the engine's compute on device-resident batches only.
WHOLE, CORE = "whole throughput (with input pipeline)", "core throughput (compute only)"
_LABELS: Mapping[str, Mapping[str, str]] = {
    "inference": {"throughput_raw": WHOLE, "throughput_pure_compute": CORE,
                  "train_time_s": "timed window (s)", "metric_value": "quality metric"},
    "spec": {"metric_value": "value", "train_time_s": "timed window (s)"},
}


def suite_kind(suite: str | None) -> str:
    """training (also None: FlagPerf training), inference, or spec (base/, operation/)."""
    return suite_of(suite).result_kind


def figures_for(suite: str | None) -> tuple[str, ...]:
    """The AGGREGATED figures the outputs of a ``suite`` case show (None: training,
    FlagPerf)."""
    skip = _SKIP[suite_kind(suite)] | (set(LATENCY) if suite_of(suite).measures_peak else set())
    return tuple(name for name in AGGREGATED if name not in skip)


def aggregated_for(suite: str | None) -> tuple[str, ...]:
    """The figures aggregated over rounds: more than those shown (the store ranks base/ and
    operation/ cases by their throughput in FLOP/s or bytes/s too)."""
    measures = suite_of(suite)
    skip = {"throughput_no_eval", "mfu_causal"} if measures.infers else {
        *LATENCY, *PER_ITEM, "reference_max_abs_diff", "reference_mean_abs_diff"}
    if measures.measures_spec:
        skip -= set(LATENCY)                      # operation/: per-call latency
    return tuple(name for name in AGGREGATED if name not in skip)


def label(name: str, suite: str | None = None) -> str:
    """The figure's label as every output of ``suite`` names it."""
    return _LABELS.get(suite_kind(suite), {}).get(name) or AGGREGATED[name][2]


def round_value(result: Figured, name: str) -> float | None:
    """The figure ``name`` (a key of AGGREGATED) of one round, or None."""
    obj: Any = result
    for part in AGGREGATED[name][0].split("."):
        obj = getattr(obj, part, None)
        if obj is None:
            return None
    if isinstance(obj, bool) or not isinstance(obj, (int, float)):
        return None
    return float(obj)


def round_reason(result: Figured, name: str) -> str:
    """Why the figure ``name`` is absent from a round ('' when present or unknown)."""
    path = AGGREGATED[name][0]
    head = path.split(".")[0]
    return result.reasons.get(path) or result.reasons.get(head) or result.reasons.get(name, "")
