"""Memory and swap: psutil's ``virtual_memory``/``swap_memory`` where psutil is installed, else
/proc/meminfo parsed here. ``used`` is total - available, as ``free`` reports it."""

from __future__ import annotations

from typing import Any

from chipperf_runtime.monitors.source import SampleError, SamplerUnavailable, psutil_or_none, read_text

_NEEDED = ("MemTotal", "MemAvailable")


def parse_meminfo(text: str) -> dict[str, int]:
    """Pure: ``{"MemTotal": bytes, ...}`` (the kernel's kB are KiB)."""
    values = {}
    for line in text.splitlines():
        key, _, rest = line.partition(":")
        fields = rest.split()
        if fields and fields[0].isdigit():
            scale = 1024 if len(fields) > 1 and fields[1] == "kB" else 1
            values[key.strip()] = int(fields[0]) * scale
    return values


def mem_sample(info: dict[str, int]) -> dict[str, Any]:
    """Pure: the sample line's values from parsed /proc/meminfo."""
    missing = [k for k in _NEEDED if k not in info]
    if missing:
        raise SampleError(f"/proc/meminfo lacks {', '.join(missing)}")
    total, available = info["MemTotal"], info["MemAvailable"]
    swap_total = info.get("SwapTotal", 0)
    values = {
        "total_bytes": total,
        "used_bytes": total - available,
        "available_bytes": available,
        "free_bytes": info.get("MemFree"),
        "buffers_bytes": info.get("Buffers"),
        "cached_bytes": info.get("Cached"),
        "used_pct": round(100.0 * (total - available) / total, 2) if total else None,
        "swap_total_bytes": swap_total,
        "swap_used_bytes": swap_total - info.get("SwapFree", swap_total),
    }
    return {k: v for k, v in values.items() if v is not None}  # absent, never a made-up 0


def psutil_meminfo(psutil: Any) -> dict[str, int]:
    """The /proc/meminfo fields ``mem_sample`` reads, from psutil (which reads that file)."""
    memory, swap = psutil.virtual_memory(), psutil.swap_memory()
    info = {"MemTotal": memory.total, "MemAvailable": memory.available, "MemFree": memory.free,
            "SwapTotal": swap.total, "SwapFree": swap.free}
    for key, field in (("Buffers", "buffers"), ("Cached", "cached")):
        if hasattr(memory, field):
            info[key] = getattr(memory, field)
    return info


class MemSource:
    name = "mem"
    file = "mem_monitor.log"

    def __init__(self, meminfo: str = "/proc/meminfo", psutil: Any = None):
        """``psutil`` as for ``CpuSource``: used for the kernel's file, never for a given one."""
        self._path = meminfo
        self._psutil = psutil if psutil is not None else (
            psutil_or_none() if meminfo == "/proc/meminfo" else None)

    def _info(self) -> dict[str, int]:
        if self._psutil is not None:
            return psutil_meminfo(self._psutil)
        return parse_meminfo(read_text(self._path))

    def setup(self) -> dict[str, Any]:
        try:
            sample = mem_sample(self._info())
        except (OSError, SampleError) as e:
            raise SamplerUnavailable(f"cannot use {self._path}: {e}") from e
        reader = f"psutil {self._psutil.__version__}" if self._psutil is not None else self._path
        return {"path": self._path, "reader": reader, "total_bytes": sample["total_bytes"]}

    def sample(self) -> dict[str, Any] | None:
        return mem_sample(self._info())

    def close(self) -> None:
        pass
