"""MFU: the model FLOPs a round did in its timed window per second, over the vendor spec
sheet's peak FLOP/s in the round's dtype times its chips; absent with a reason when a
factor is unknown. ``causal_mfu``: the same with the attention term of a causal model halved
(FINISHED's ``attention_flops_per_unit`` and ``causal_attention``)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from chipperf.suites import suite_of

# base/ measures the chip's own figures against its spec sheet (share_of_peak): a model's
# FLOPs utilisation means nothing there, and its above-100 % rule speaks of the share of spec.
SPEC_NOT_MFU = ("not a model run: base/ reports the share of the spec sheet's peak instead "
                "(share_of_peak)")


@dataclass(frozen=True)
class Mfu:
    value: float | None
    dtype: str | None
    peak_flops_per_chip: float | None
    chips: int | None
    reason: str = ""


def mfu(fields: Mapping[str, Any], vendor: str | None, chip: str | None,
        chips: int | None, suite: str | None = None) -> Mfu:
    """(window_work x flops_per_unit / timed window) / (peak FLOP/s for dtype x chips).

    flops_per_unit is what FINISHED says one unit costs: training FLOPs (forward +
    backward) per sample or token for training, forward FLOPs per item for inference,
    so the one formula serves both. The timed window is ``train_time_s`` (for inference,
    where FINISHED need not carry it, ``performance`` fills in rank 0's
    TRAIN_START..TRAIN_END span)."""
    dtype = fields.get("dtype")
    peak, why = chip_peak(vendor, chip, dtype)
    if suite_of(suite).measures_peak:
        return Mfu(None, dtype, peak, chips, SPEC_NOT_MFU)
    seconds = fields.get("train_time_s")
    needed = (("work_done", fields.get("window_work")),
              ("flops_per_unit", fields.get("flops_per_unit")),
              ("train_time_s" + (" (nor a TRAIN_START..TRAIN_END span)"
                                 if suite_of(suite).infers else ""), seconds))
    missing = [k for k, v in needed if not v]
    if missing == ["work_done"] and fields.get("work_done"):   # inference: queries unknown
        why = why or "items in the timed window unknown (FINISHED lacks latency_ms.count)"
    elif missing:
        why = why or f"FINISHED has no (positive) {', '.join(missing)}"
    if not chips:
        why = why or "number of chips unknown (no FINISHED world_size, no case topology)"
    if why or peak is None or not chips or not seconds:
        return Mfu(None, dtype, peak, chips, why or "no peak FLOP/s")
    achieved = fields["window_work"] * fields["flops_per_unit"] / seconds
    return Mfu(achieved / (peak * chips), dtype, peak, chips)


def causal_mfu(fields: Mapping[str, Any], whole: float | None) -> tuple[float | None, str]:
    """MFU with the attention FLOPs halved where the model's attention is causal (a causal mask
    leaves about half of the score and value products to do), and why it is absent:
    ``whole`` x (flops_per_unit - attention / 2) / flops_per_unit. A model whose attention is
    not causal (an encoder, a masked LM, a vision transformer, a model without attention) has
    no half to take: its causal figure is the whole one. Absent when the whole MFU is, or when
    FINISHED does not say how much of flops_per_unit is attention."""
    attention, causal = fields.get("attention_flops_per_unit"), fields.get("causal_attention")
    per_unit = fields.get("flops_per_unit")
    if whole is None:
        return None, "no MFU to halve the attention of (see mfu)"
    if attention is None or causal is None or not per_unit:
        return None, ("FINISHED has no attention_flops_per_unit and causal_attention: the case "
                      "does not say how much of flops_per_unit is attention")
    if not causal:
        return whole, ""
    return whole * (per_unit - attention / 2) / per_unit, ""


def chip_peak(vendor: str | None, chip: str | None, dtype: str | None) -> tuple[float | None, str]:
    """The spec sheet's peak FLOP/s of one chip in ``dtype``, or (None, why not)."""
    from chipperf_runtime.vendors import get_vendor

    if not dtype:
        return None, "FINISHED has no dtype"
    if not vendor or not chip:
        return None, "vendor or chip of the case unknown"
    try:
        spec = get_vendor(vendor).chip(chip)
    except KeyError:
        return None, f"no vendor module {vendor!r} in chipperf_runtime/vendors/"
    if spec is None:
        return None, f"{vendor} vendor spec sheet has no chip {chip}"
    if not spec.peak_flops:
        return None, f"{vendor} vendor spec sheet has no peak FLOP/s for chip {chip}"
    peak = spec.peak_flops.get(dtype) or spec.peak_flops.get(dtype.lower())
    if not peak:
        return None, (f"{vendor} spec sheet for {chip} has no peak FLOP/s in {dtype}: "
                      f"{spec.why_missing(dtype)}")
    return float(peak), ""
