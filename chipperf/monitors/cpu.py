"""CPU utilisation, overall and per core, from /proc/stat deltas (the first read primes)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from chipperf.monitors.source import SamplerUnavailable, read_text

# /proc/stat cpu columns: user nice system idle iowait irq softirq steal guest guest_nice.
# guest and guest_nice are already counted in user and nice, so the total stops at steal.
_TOTAL_COLUMNS = 8
_IDLE, _IOWAIT, _USER, _NICE, _SYSTEM = 3, 4, 0, 1, 2

Snapshot = Mapping[str, "tuple[int, ...]"]


def parse_proc_stat(text: str) -> dict[str, tuple[int, ...]]:
    """Pure: ``{"cpu": counters, "cpu0": counters, ...}`` in clock ticks."""
    stats = {}
    for line in text.splitlines():
        if line.startswith("cpu"):
            name, *fields = line.split()
            stats[name] = tuple(int(f) for f in fields[:_TOTAL_COLUMNS])
    return stats


def utilisation(before: tuple[int, ...], after: tuple[int, ...]) -> dict[str, float] | None:
    """Pure: busy/user/system/iowait percentages between two snapshots of one cpu line."""
    delta = [b - a for a, b in zip(before, after)]
    total = sum(delta)
    if total <= 0:
        return None
    idle = delta[_IDLE] + (delta[_IOWAIT] if len(delta) > _IOWAIT else 0)

    def pct(ticks: int) -> float:
        return round(100.0 * ticks / total, 2)

    return {"util_pct": pct(total - idle), "user_pct": pct(delta[_USER] + delta[_NICE]),
            "system_pct": pct(delta[_SYSTEM]),
            "iowait_pct": pct(delta[_IOWAIT]) if len(delta) > _IOWAIT else 0.0}


def cpu_sample(before: Snapshot, after: Snapshot) -> dict[str, Any] | None:
    """Pure: the sample line's values from two /proc/stat snapshots."""
    overall = utilisation(before["cpu"], after["cpu"])
    if overall is None:
        return None
    cores = {}
    for name in sorted((n for n in after if n != "cpu" and n in before), key=lambda n: int(n[3:])):
        core = utilisation(before[name], after[name])
        if core is not None:
            cores[name[3:]] = core["util_pct"]
    return {**overall, "per_core_util_pct": cores}


class CpuSource:
    name = "cpu"
    file = "cpu_monitor.log"

    def __init__(self, proc_stat: str = "/proc/stat"):
        self._path = proc_stat
        self._last: dict[str, tuple[int, ...]] = {}

    def setup(self) -> dict[str, Any]:
        try:
            self._last = parse_proc_stat(read_text(self._path))
        except OSError as e:
            raise SamplerUnavailable(f"cannot read {self._path}: {e}") from e
        if "cpu" not in self._last:
            raise SamplerUnavailable(f"{self._path} has no aggregate cpu line")
        cores = sorted(int(n[3:]) for n in self._last if n != "cpu")
        self._last = {}  # the first tick primes
        return {"path": self._path, "cores": cores}

    def sample(self) -> dict[str, Any] | None:
        now = parse_proc_stat(read_text(self._path))
        before, self._last = self._last, now
        return cpu_sample(before, now) if before else None

    def close(self) -> None:
        pass
