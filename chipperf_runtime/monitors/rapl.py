"""CPU package and DRAM power from RAPL counters in the powercap sysfs tree.

Each ``intel-rapl:N`` zone (and sub-zone ``intel-rapl:N:M``) has ``name``,
``energy_uj`` (a counter that wraps at ``max_energy_range_uj``) and
``max_energy_range_uj``. We sample ``package-*`` zones and ``dram`` zones (``core``,
``uncore`` are parts of a package, ``psys`` overlaps everything: not summed). Watts
are the counter delta over the monotonic time between reads; ``energy_j`` is the
running total since the monitor started, wraparounds included. The first read primes.

The root is ``/sys/class/powercap`` unless given, or set by ``CHIPPERF_POWERCAP_ROOT``
(a container may mount the host's tree elsewhere). It may be the flat class
directory of symlinks or the nested ``devices/virtual/powercap`` tree.
"""

from __future__ import annotations

import os
import re
import time
from dataclasses import dataclass
from typing import Any, Callable

from chipperf_runtime.monitors.source import SampleError, SamplerUnavailable, read_text

DEFAULT_ROOT = "/sys/class/powercap"
ROOT_ENV = "CHIPPERF_POWERCAP_ROOT"
_ZONE_DIR = re.compile(r"intel-rapl(?::(\d+(?::\d+)*))?")
_MAX_DEPTH = 3


@dataclass(frozen=True)
class Zone:
    zone_id: str  # "0" or "0:0"
    path: str
    label: str  # "package-0", "package-0/dram"
    max_range_uj: int | None


def wrapped_delta(before: int, after: int, max_range: int | None) -> int:
    """Pure: counter increase, across one wraparound at ``max_range``."""
    if after >= before:
        return after - before
    if not max_range:
        raise SampleError(f"energy counter went back ({before} -> {after}) with no known range")
    return after + max_range - before


def find_zones(root: str) -> tuple[list[Zone], list[str]]:
    """Every RAPL zone under ``root``: (zones to sample, labels of zones left out)."""
    paths: dict[str, tuple[str, str]] = {}  # zone id -> (path, name)
    _visit(root, 0, paths, set())
    names = {zid: name for zid, (_, name) in paths.items()}
    chosen, skipped = [], []
    for zid in sorted(paths, key=lambda z: [int(p) for p in z.split(":")]):
        path, name = paths[zid]
        parent = zid.rpartition(":")[0]
        label = f"{names.get(parent, 'intel-rapl:' + parent)}/{name}" if parent else name
        if name == "dram" or (not parent and name.startswith("package")):
            chosen.append(Zone(zid, path, label, _read_int(path, "max_energy_range_uj")))
        else:
            skipped.append(label)
    return chosen, skipped


def _visit(directory: str, depth: int, paths: dict[str, tuple[str, str]], seen: set[str]) -> None:
    try:
        entries = sorted(os.listdir(directory))
    except OSError:
        return
    for entry in entries:
        match = _ZONE_DIR.fullmatch(entry)
        path = os.path.join(directory, entry)
        real = os.path.realpath(path)
        if not match or real in seen or not os.path.isdir(path):
            continue
        seen.add(real)
        if match.group(1) and os.path.exists(os.path.join(path, "energy_uj")):
            paths.setdefault(match.group(1), (path, _read_name(path)))
        if depth < _MAX_DEPTH:
            _visit(path, depth + 1, paths, seen)


def _read_name(path: str) -> str:
    try:
        return read_text(os.path.join(path, "name")).strip()
    except OSError:
        return os.path.basename(path)


def _read_int(path: str, leaf: str) -> int | None:
    try:
        return int(read_text(os.path.join(path, leaf)).strip())
    except (OSError, ValueError):
        return None


class RaplSource:
    name = "rapl"
    file = "pwr_monitor.log"

    def __init__(self, root: str | None = None,
                 clock: Callable[[], float] = time.monotonic):
        self._root = root or os.environ.get(ROOT_ENV) or DEFAULT_ROOT
        self._clock = clock
        self._zones: list[Zone] = []
        self._last: dict[str, int] = {}
        self._last_t = 0.0
        self._total_j: dict[str, float] = {}

    def setup(self) -> dict[str, Any]:
        if not os.path.isdir(self._root):
            raise SamplerUnavailable(f"no powercap tree at {self._root} (no RAPL, or /sys not "
                                     f"visible: mount it and set {ROOT_ENV})")
        self._zones, skipped = find_zones(self._root)
        if not self._zones:
            raise SamplerUnavailable(f"no RAPL package or dram zone under {self._root}")
        try:
            self._read()  # readable now; the first tick primes
        except (OSError, ValueError) as e:
            raise SamplerUnavailable(f"RAPL energy_uj not readable under {self._root}: {e} "
                                     "(the kernel lets only root read it)") from e
        self._total_j = {z.label: 0.0 for z in self._zones}
        return {"root": self._root, "zones": [z.label for z in self._zones],
                "not_summed": skipped}

    def sample(self) -> dict[str, Any] | None:
        now, now_t = self._read(), self._clock()
        if not self._last:
            self._last, self._last_t = now, now_t
            return None
        dt = now_t - self._last_t
        if dt <= 0:
            raise SampleError("clock did not advance between two RAPL reads")
        domains = {}
        for zone in self._zones:
            delta = wrapped_delta(self._last[zone.label], now[zone.label], zone.max_range_uj)
            self._total_j[zone.label] += delta / 1e6
            domains[zone.label] = {"power_w": round(delta / 1e6 / dt, 3),
                                   "energy_j": round(self._total_j[zone.label], 6)}
        self._last, self._last_t = now, now_t
        return {"power_w": round(sum(d["power_w"] for d in domains.values()), 3),
                "energy_j": round(sum(self._total_j.values()), 6), "domains": domains}

    def close(self) -> None:
        pass

    def _read(self) -> dict[str, int]:
        return {z.label: int(read_text(os.path.join(z.path, "energy_uj")).strip())
                for z in self._zones}
