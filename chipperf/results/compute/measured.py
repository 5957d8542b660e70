"""Measured peaks: the base/ suite's GEMM FLOP/s of a chip, as the denominator of MFU.

A spec sheet's peak is what a vendor promises; base/'s ``computation-<DTYPE>`` case measures
what a GEMM reaches on the same chip. A training or inference report given a base/ run
(test config ``MEASURED_PEAKS = "<base run dir>"``, or ``chipperf report --measured-peaks``)
shows ``mfu_measured`` beside ``mfu``: the same achieved FLOP/s divided by the measured peak
of the same vendor, chip and dtype, stating which run and case it came from. For the cpu
vendor, whose spec sheets have no peak, it is the only MFU there is.

The peak of a chip in a dtype is the highest FINISHED value over the base run's rounds of
that spec (a peak is the best a chip was seen to reach, not its average).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from chipperf.suites import suite_of
from chipperf_runtime.perflog import parse_lines

SPEC_PREFIX = "computation-"


@dataclass(frozen=True)
class Peak:
    flops_per_s: float
    source: str          # "<base run>/<case dir>/round<N>" of the best round


@dataclass(frozen=True)
class MeasuredPeaks:
    run_dir: str
    vendor: str | None
    peaks: Mapping[tuple[str, str], Peak] = field(default_factory=dict)   # (chip, dtype)

    def peak(self, vendor: str | None, chip: str | None, dtype: str | None
             ) -> tuple[Peak | None, str]:
        """The measured peak for one case, or (None, why not)."""
        if not dtype:
            return None, "FINISHED has no dtype"
        if vendor != self.vendor:
            return None, (f"the measured peaks in {self.run_dir} are vendor {self.vendor}'s, "
                          f"this case is vendor {vendor}'s")
        found = self.peaks.get(((chip or "").lower(), dtype.lower()))
        if found is None:
            have = ", ".join(f"{c} {d}" for c, d in sorted(self.peaks)) or "none"
            return None, (f"{self.run_dir} has no {SPEC_PREFIX}{dtype.upper()} result for chip "
                          f"{chip} (it has: {have})")
        return found, ""


def read_measured_peaks(run_dir: Path) -> tuple[MeasuredPeaks | None, list[str]]:
    """The GEMM peaks of a base/ run directory, or (None, problems) when it is not one."""
    run_dir = Path(run_dir)
    try:
        run = json.loads((run_dir / "run.json").read_text())
    except (OSError, ValueError) as exc:
        return None, [f"measured peaks: {run_dir}/run.json cannot be read ({exc})"]
    if not suite_of(run.get("suite")).measures_peak:
        return None, [f"measured peaks: {run_dir} is a {run.get('suite')!r} run, not a base/ run"]
    vendor = (run.get("test") or {}).get("vendor")
    best: dict[tuple[str, str], Peak] = {}
    for name, entry in (run.get("cases") or {}).items():
        chip = str((entry or {}).get("chip") or "").lower()
        for log in sorted((run_dir / name).glob("round*/*_noderank0/rank0.out.log")):
            value = _gemm_tflops(log)
            if value is None:
                continue
            spec, tflops = value
            key = (chip, spec[len(SPEC_PREFIX):].lower())
            if key not in best or tflops * 1e12 > best[key].flops_per_s:
                best[key] = Peak(tflops * 1e12, f"{run_dir.name}/{name}/{log.parent.parent.name}")
    if not best:
        return None, [f"measured peaks: {run_dir} has no {SPEC_PREFIX}<DTYPE> result"]
    return MeasuredPeaks(str(run_dir), vendor, best), []


def _gemm_tflops(log: Path) -> tuple[str, float] | None:
    events, _ = parse_lines(log.read_text(errors="replace").splitlines())
    for event in events:
        value: Any = event.value
        if event.name == "FINISHED" and isinstance(value, dict):
            spec, unit, tflops = value.get("spec"), value.get("unit"), value.get("value")
            if (isinstance(spec, str) and spec.startswith(SPEC_PREFIX) and unit == "TFLOP/s"
                    and isinstance(tflops, (int, float)) and tflops > 0):
                return spec, float(tflops)
    return None
