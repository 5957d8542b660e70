"""``python3 -m chipperf_runtime.monitors --out DIR [--interval 1] [--vendor cpu] [--duration S]``
(the arguments: chipperf_runtime/monitors/command.py)."""

from __future__ import annotations

import sys
from pathlib import Path

from chipperf_runtime.monitors.command import MonitorCommand
from chipperf_runtime.monitors.run import run_monitor


def main(argv: list[str]) -> int:
    command = MonitorCommand.from_argv(argv)
    try:
        run_monitor(Path(command.out), command.interval_s, command.duration_s, command.vendor)
    except (ValueError, OSError) as e:
        print(f"chipperf_runtime.monitors: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
