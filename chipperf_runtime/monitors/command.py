"""The monitor sidecar's command line, said once: the engine writes it (``to_argv``, the sidecar
container's command) and the sidecar reads it (``from_argv``).

    python3 -m chipperf_runtime.monitors --out DIR [--interval 1] [--vendor cpu] [--duration S]

``DEFAULT_INTERVAL_S`` is the sampling interval wherever none is given (the test config's
MONITOR_INTERVAL, the sidecar, the results code reading a file with no info line). Standard
library only: the engine imports it.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from dataclasses import dataclass

MODULE = "chipperf_runtime.monitors"
DEFAULT_INTERVAL_S = 1.0
DEFAULT_VENDOR = "cpu"


@dataclass(frozen=True)
class MonitorCommand:
    out: str                                  # the node's result directory
    interval_s: float = DEFAULT_INTERVAL_S    # seconds between samples
    vendor: str = DEFAULT_VENDOR              # vendor plugin (chipperf_runtime/vendors/)
    duration_s: float | None = None           # stop after this long; None: until signalled

    def to_argv(self, python: str = "python3") -> tuple[str, ...]:
        """The sidecar's command, an argument list."""
        duration = ("--duration", str(self.duration_s)) if self.duration_s is not None else ()
        return (python, "-m", MODULE, "--out", self.out, "--interval", str(self.interval_s),
                "--vendor", self.vendor, *duration)

    @classmethod
    def from_argv(cls, argv: Sequence[str]) -> MonitorCommand:
        """The arguments after ``-m chipperf_runtime.monitors``; exits 2 on bad ones (argparse)."""
        args = _parser().parse_args(list(argv))
        return cls(out=args.out, interval_s=args.interval, vendor=args.vendor,
                   duration_s=args.duration)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog=f"python3 -m {MODULE}",
                                     description="Sample CPU, memory, power and accelerators "
                                                 "into JSONL files until SIGTERM/SIGINT.")
    parser.add_argument("--out", required=True, help="output directory")
    parser.add_argument("--interval", type=float, default=DEFAULT_INTERVAL_S,
                        help="seconds between samples")
    parser.add_argument("--vendor", default=DEFAULT_VENDOR,
                        help="vendor plugin (chipperf_runtime/vendors/)")
    parser.add_argument("--duration", type=float, default=None,
                        help="stop after this many seconds (default: run until signalled)")
    return parser
