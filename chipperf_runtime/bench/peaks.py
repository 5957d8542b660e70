"""A chip's spec-sheet peaks, from its vendor module (chipperf_runtime.vendors ChipSpec).

``find_chip`` matches the chip name of the case key against the vendor's sheets: exactly
(ignoring case), else the sheet whose name starts the key's chip followed by ``_``, so
FlagPerf's ``A100_40_SXM`` finds ``A100``. Every lookup returns a ``Peak`` or the reason
there is none; a share of peak is then absent with that reason, never 0.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, Optional, Union

from chipperf_runtime.vendors import get_vendor, vendor_names


@dataclass(frozen=True)
class Peak:
    value: float     # FLOP/s, bytes/s or bytes
    unit: str
    source: str      # the sheet it comes from


Found = Union[Peak, str]   # a peak, or why there is none
# The operators rated in TFLOP/s against the key's spec number (chipperf_runtime/operation
# table.py: those with a FLOP count); the others are rated in GB/s against the sheet's bandwidth.
COMPUTE_BOUND_OPERATORS = frozenset({"mm", "bmm", "addmm", "linear", "conv2d",
                                     "scaled_dot_product_attention"})


def find_chip(vendor: str, chip: str) -> tuple[Optional[Any], str]:
    """(the ChipSpec, '') or (None, why not)."""
    if vendor not in vendor_names():
        return None, f"vendor {vendor!r} has no module in chipperf_runtime/vendors"
    v = get_vendor(vendor)
    spec = v.chip(chip)
    if spec is None:
        spec = next((c for name, c in v.chips.items()
                     if chip.lower().startswith(name.lower() + "_")), None)
    if spec is None:
        known = ", ".join(sorted(v.chips)) or "none"
        return None, f"vendor {vendor!r} has no spec sheet for chip {chip!r} (sheets: {known})"
    return spec, ""


def flops_peak(vendor: str, chip: str, dtype: str) -> Found:
    """Dense FLOP/s (OP/s for int8) of ``dtype`` ("fp32", "bf16", ...) per chip."""
    spec, why = find_chip(vendor, chip)
    if spec is None:
        return why
    value = spec.peak_flops.get(dtype.lower())
    if not value:
        return f"chip {spec.name!r} has no {dtype} peak on its spec sheet: {spec.why_missing(dtype)}"
    return Peak(float(value), "FLOP/s", spec.source or spec.name)


def memory_bandwidth_peak(vendor: str, chip: str) -> Found:
    """Bytes/s of the chip's main memory, from the sheet's bandwidth field where it has one
    (a value below 1e6 is read as GB/s, above as bytes/s)."""
    spec, why = find_chip(vendor, chip)
    if spec is None:
        return why
    for f in dataclasses.fields(spec):
        value = getattr(spec, f.name)
        if "bandwidth" in f.name and isinstance(value, (int, float)) and value > 0:
            scale = 1e9 if value < 1e6 else 1.0
            return Peak(float(value) * scale, "bytes/s", spec.source or spec.name)
    return f"chip {spec.name!r}: its spec sheet has no memory bandwidth"


def memory_capacity_peak(vendor: str, chip: str) -> Found:
    spec, why = find_chip(vendor, chip)
    if spec is None:
        return why
    if not spec.memory_bytes:
        return f"chip {spec.name!r}: its spec sheet has no memory size"
    return Peak(float(spec.memory_bytes), "bytes", spec.source or spec.name)


def plan_note(suite: str, spec: str, vendor: str, chip: str, case_args: tuple[str, ...] = ()
              ) -> Optional[str]:
    """Why a base/ or operation/ case will report no share of spec-sheet peak, said at plan
    time (the case still runs and reports its value; the share is absent with this reason)."""
    if suite == "base":
        return _base_note(spec, vendor, chip)
    if suite == "operation":
        return _operation_note(spec, vendor, chip, case_args)
    return None


def _base_note(spec: str, vendor: str, chip: str) -> Optional[str]:
    found: Found
    if spec.startswith("computation-"):
        found = flops_peak(vendor, chip, spec.split("-", 1)[1])
    elif spec == "main_memory-bandwidth":
        found = memory_bandwidth_peak(vendor, chip)
    elif spec == "main_memory-capacity":
        found = memory_capacity_peak(vendor, chip)
    else:
        return None
    if not isinstance(found, str):
        return None
    hint = ": set CHIP in host.yaml or write the key as spec:CHIP" if "no spec sheet" in found else ""
    return f"no share of spec peak: {found}{hint}"


def _operation_note(op: str, vendor: str, chip: str, case_args: tuple[str, ...]
                    ) -> Optional[str]:
    if op in COMPUTE_BOUND_OPERATORS:
        args = dict(zip(case_args[::2], case_args[1::2]))
        if float(args.get("--spec_tflops", "0")) > 0:
            return None
        return ("no share of spec peak: the key gives no spec TFLOP/s "
                "(op:dtype:TFLOPS:provider:chip)")
    bandwidth = memory_bandwidth_peak(vendor, chip)
    return f"no share of spec peak: {bandwidth}" if isinstance(bandwidth, str) else None


def share(measured: float, peak: Found) -> dict[str, Any]:
    """FINISHED's ``spec_peak`` part: the peak, its source and the share, or the reason."""
    if isinstance(peak, str):
        return {"spec_peak": None, "share_of_peak": None, "share_reason": peak}
    return {"spec_peak": {"value": peak.value, "unit": peak.unit, "source": peak.source},
            "share_of_peak": measured / peak.value}
