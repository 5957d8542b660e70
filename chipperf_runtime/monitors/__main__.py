"""``python3 -m chipperf_runtime.monitors --out DIR [--interval 1] [--vendor cpu] [--duration S]``."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from chipperf_runtime.monitors.run import run_monitor


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python3 -m chipperf_runtime.monitors",
                                     description="Sample CPU, memory, power and accelerators "
                                                 "into JSONL files until SIGTERM/SIGINT.")
    parser.add_argument("--out", required=True, type=Path, help="output directory")
    parser.add_argument("--interval", type=float, default=1.0, help="seconds between samples")
    parser.add_argument("--vendor", default="cpu", help="vendor plugin (chipperf_runtime/vendors/)")
    parser.add_argument("--duration", type=float, default=None,
                        help="stop after this many seconds (default: run until signalled)")
    return parser.parse_args(argv)


def main(argv: list[str]) -> int:
    args = parse_args(argv)
    try:
        run_monitor(args.out, args.interval, args.duration, args.vendor)
    except (ValueError, OSError) as e:
        print(f"chipperf_runtime.monitors: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
