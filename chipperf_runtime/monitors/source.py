"""What the sampling loop drives: a ``Source`` reads one kind of telemetry.

``setup()`` runs once, returns facts for the ``info`` line (and sys_info.json) and
raises ``SamplerUnavailable`` with the reason when this host has no such source;
``sample()`` reads once per tick and returns the values to write (``None``: nothing
this tick, e.g. the priming read of a counter), or raises on a failed read;
``close()`` runs once at the end. A source never spawns a process per sample except
the IPMI tool, which is itself the sensor.
"""

from __future__ import annotations

from typing import Any, Protocol

from chipperf_runtime.vendors.base import SampleError, SamplerUnavailable

__all__ = ["SampleError", "SamplerUnavailable", "Source", "psutil_or_none", "read_text"]


class Source(Protocol):
    name: str  # the "source" of its lines: cpu, mem, ipmi, rapl, <vendor>
    file: str  # its file in the output dir

    def setup(self) -> dict[str, Any]: ...

    def sample(self) -> dict[str, Any] | None: ...

    def close(self) -> None: ...


def read_text(path: str) -> str:
    with open(path, encoding="ascii", errors="replace") as f:
        return f.read()


def psutil_or_none() -> Any:
    """psutil when this interpreter has it (chipperf's images do), else None: the cpu and mem
    sources then parse /proc themselves, so the sidecar runs in any vendor image."""
    try:
        import psutil
    except ImportError:
        return None
    return psutil
