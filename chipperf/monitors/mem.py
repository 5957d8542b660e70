"""Memory and swap from /proc/meminfo. ``used`` is total - available, as ``free`` reports it."""

from __future__ import annotations

from typing import Any

from chipperf.monitors.source import SampleError, SamplerUnavailable, read_text

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


class MemSource:
    name = "mem"
    file = "mem_monitor.log"

    def __init__(self, meminfo: str = "/proc/meminfo"):
        self._path = meminfo

    def setup(self) -> dict[str, Any]:
        try:
            sample = mem_sample(parse_meminfo(read_text(self._path)))
        except (OSError, SampleError) as e:
            raise SamplerUnavailable(f"cannot use {self._path}: {e}") from e
        return {"path": self._path, "total_bytes": sample["total_bytes"]}

    def sample(self) -> dict[str, Any] | None:
        return mem_sample(parse_meminfo(read_text(self._path)))

    def close(self) -> None:
        pass
