"""The monitor sidecar: one sampling loop, every source, JSONL files.

Run it as ``python3 -m chipperf_runtime.monitors --out DIR --interval 1 --vendor nvidia
[--duration 10]`` (inside the case container, or on a host) or call
``run_monitor(out_dir, interval_s, duration_s, vendor)``. It writes, in DIR:

    cpu_monitor.log  mem_monitor.log  pwr_monitor.log  <vendor>_monitor.log  sys_info.json

(line format: ``chipperf_runtime.monitors.records``; docs/monitors.md). The files are
summarised over the timed window by the results code (``chipperf.results.compute.power``).
Only the standard library is imported at module level (psutil is used when installed): the
package is uploaded into containers.
"""

from __future__ import annotations

from chipperf_runtime.monitors.loop import Stopper
from chipperf_runtime.monitors.run import SYS_INFO, run_monitor

__all__ = ["SYS_INFO", "Stopper", "run_monitor"]
