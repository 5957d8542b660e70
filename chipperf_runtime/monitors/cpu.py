"""CPU utilisation, overall and per core, from deltas of the kernel's CPU time counters (the
first read primes): psutil's ``cpu_times`` where psutil is installed, else /proc/stat parsed
here (the sidecar runs in any vendor image; psutil is in chipperf's own)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from chipperf_runtime.monitors.source import SamplerUnavailable, psutil_or_none, read_text

# /proc/stat cpu columns: user nice system idle iowait irq softirq steal guest guest_nice.
# guest and guest_nice are already counted in user and nice, so the total stops at steal.
_TOTAL_COLUMNS = 8
_IDLE, _IOWAIT, _USER, _NICE, _SYSTEM = 3, 4, 0, 1, 2

Snapshot = Mapping[str, "tuple[float, ...]"]


def parse_proc_stat(text: str) -> dict[str, tuple[int, ...]]:
    """Pure: ``{"cpu": counters, "cpu0": counters, ...}`` in clock ticks."""
    stats = {}
    for line in text.splitlines():
        if line.startswith("cpu"):
            name, *fields = line.split()
            stats[name] = tuple(int(f) for f in fields[:_TOTAL_COLUMNS])
    return stats


def utilisation(before: tuple[float, ...], after: tuple[float, ...]) -> dict[str, float] | None:
    """Pure: busy/user/system/iowait percentages between two snapshots of one cpu line."""
    delta = [b - a for a, b in zip(before, after)]
    total = sum(delta)
    if total <= 0:
        return None
    idle = delta[_IDLE] + (delta[_IOWAIT] if len(delta) > _IOWAIT else 0)

    def pct(ticks: float) -> float:
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


def psutil_snapshot(psutil: Any) -> dict[str, tuple[float, ...]]:
    """The same snapshot from psutil (seconds instead of ticks: only ratios are used)."""
    stats = {"cpu": tuple(psutil.cpu_times())[:_TOTAL_COLUMNS]}
    for index, times in enumerate(psutil.cpu_times(percpu=True)):
        stats[f"cpu{index}"] = tuple(times)[:_TOTAL_COLUMNS]
    return stats


class CpuSource:
    name = "cpu"
    file = "cpu_monitor.log"

    def __init__(self, proc_stat: str = "/proc/stat", psutil: Any = None):
        """``psutil``: the module to read through (default: psutil when importable and
        ``proc_stat`` is the kernel's; a given ``proc_stat`` file is always parsed)."""
        self._path = proc_stat
        self._psutil = psutil if psutil is not None else (
            psutil_or_none() if proc_stat == "/proc/stat" else None)
        self._last: Snapshot = {}

    def _snapshot(self) -> Snapshot:
        if self._psutil is not None:
            return psutil_snapshot(self._psutil)
        return parse_proc_stat(read_text(self._path))

    def setup(self) -> dict[str, Any]:
        try:
            self._last = self._snapshot()
        except OSError as e:
            raise SamplerUnavailable(f"cannot read {self._path}: {e}") from e
        if "cpu" not in self._last:
            raise SamplerUnavailable(f"{self._path} has no aggregate cpu line")
        cores = sorted(int(n[3:]) for n in self._last if n != "cpu")
        self._last = {}  # the first tick primes
        reader = f"psutil {self._psutil.__version__}" if self._psutil is not None else self._path
        return {"path": self._path, "reader": reader, "cores": cores}

    def sample(self) -> dict[str, Any] | None:
        now = self._snapshot()
        before, self._last = self._last, now
        return cpu_sample(before, now) if before else None

    def close(self) -> None:
        pass
