"""``run_monitor``: the sidecar's whole run (sources, sys_info.json, loop, end markers)."""

from __future__ import annotations

from pathlib import Path

import chipperf_runtime.monitors.sysinfo as sysinfo
from chipperf_runtime.monitors.accelerator import AcceleratorSource
from chipperf_runtime.monitors.command import DEFAULT_INTERVAL_S
from chipperf_runtime.monitors.cpu import CpuSource
from chipperf_runtime.monitors.ipmi import IpmiSource
from chipperf_runtime.monitors.loop import (
    Stopper,
    finish,
    open_logs,
    run_loop,
    start_sources,
    stop_on_signals,
)
from chipperf_runtime.monitors.mem import MemSource
from chipperf_runtime.monitors.rapl import RaplSource
from chipperf_runtime.monitors.source import Source

SYS_INFO = "sys_info.json"


def build_sources(vendor: str) -> list[Source]:
    """The node sources, plus the vendor's accelerator sampler when it has one."""
    from chipperf_runtime.vendors import get_vendor, vendor_names

    try:
        plugin = get_vendor(vendor)
    except KeyError:
        raise ValueError(f"unknown vendor {vendor!r}; known: {', '.join(vendor_names())}") from None
    sources: list[Source] = [CpuSource(), MemSource(), IpmiSource(), RaplSource()]
    if plugin.accelerator_sampler is not None:
        sources.append(AcceleratorSource(plugin.name, plugin.accelerator_sampler))
    return sources


def run_monitor(out_dir: Path, interval_s: float = DEFAULT_INTERVAL_S, duration_s: float | None = None,
                vendor: str = "cpu", *, stopper: Stopper | None = None,
                sources: list[Source] | None = None) -> None:
    """Sample every ``interval_s`` into ``out_dir`` until SIGTERM/SIGINT, ``stopper`` or
    ``duration_s``; then write the end markers. ``sources`` replaces the default set."""
    if not interval_s > 0:
        raise ValueError(f"interval must be > 0 s, got {interval_s}")
    if duration_s is not None and duration_s < 0:
        raise ValueError(f"duration must be >= 0 s, got {duration_s}")
    sources = build_sources(vendor) if sources is None else sources
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    stopper = stopper or Stopper()
    with stop_on_signals(stopper), open_logs(out_dir, sources) as logs:
        running, facts = start_sources(sources, logs, interval_s)
        for log in logs.values():
            log.stream.flush()
        accelerator = next((s.name for s in sources if isinstance(s, AcceleratorSource)), None)
        sysinfo.write_json_atomic(out_dir / SYS_INFO, sysinfo.collect(
            vendor, facts.get(accelerator) if accelerator else None))
        reason = "stopped before sampling"
        try:
            reason = run_loop(running, logs, interval_s, duration_s, stopper)
        finally:
            finish(running, logs, reason)
