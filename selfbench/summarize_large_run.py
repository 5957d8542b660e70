"""Time summarize + write_reports on a large synthetic run and report peak memory.

The run: one case on 8 nodes x 8 ranks, one round whose timed window lasts an hour,
monitors sampled at 1 Hz (cpu, mem, pwr and an nvidia-like accelerator file with 8
devices per line), rank 0 logging a STEP_END every second. Usage::

    python3 selfbench/summarize_large_run.py [--seconds 3600] [--nodes 8] [--nproc 8]
        [--keep DIR]

Prints the tree's size, the wall and CPU time of ``summarize`` and of ``write_reports``
(which summarises again, then renders and writes every file), the process's peak RSS
(``resource.getrusage``) before and after them, and the machine's load average (wall
time on a busy machine is CPU time stretched by the other work).
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

sys.path[:0] = [str(Path(__file__).resolve().parents[1]), str(Path(__file__).resolve().parents[1] / "tests")]

from synthetic_results import SynthCase, SynthRound, write_run  # noqa: E402

from chipperf.results.report import summarize, write_reports  # noqa: E402

T = TypeVar("T")


def peak_rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # Linux: KiB


def timed(function: Callable[[Path], T], run_dir: Path) -> tuple[T, float, float]:
    wall, cpu = time.perf_counter(), time.process_time()
    result = function(run_dir)
    return result, time.perf_counter() - wall, time.process_time() - cpu


def tree_size(root: Path) -> tuple[int, int]:
    files = [p for p in root.rglob("*") if p.is_file()]
    return len(files), sum(p.stat().st_size for p in files)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=int, default=3600)
    parser.add_argument("--nodes", type=int, default=8)
    parser.add_argument("--nproc", type=int, default=8)
    parser.add_argument("--keep", type=Path, help="write the tree here and keep it")
    args = parser.parse_args(argv)
    root = args.keep or Path(tempfile.mkdtemp(prefix="chipperf-bench-"))
    try:
        case = SynthCase(nnodes=args.nodes, nproc=args.nproc, seconds=args.seconds,
                         rounds=(SynthRound(),))
        started = time.perf_counter()
        run_dir = write_run(root, [case])
        generated = time.perf_counter() - started
        files, size = tree_size(run_dir)
        print(f"tree: {files} files, {size / 2**20:.1f} MiB, {args.nodes} nodes x "
              f"{args.nproc} ranks, {args.seconds} s at 1 Hz (generated in {generated:.1f} s)")
        rss_before = peak_rss_mib()
        (summary, wall, cpu) = timed(summarize, run_dir)
        print(f"summarize: {wall:.2f} s wall, {cpu:.2f} s CPU ({len(summary.cases)} case, "
              f"{len(summary.cases[0].rounds[0].nodes)} nodes)")
        (written, wall, cpu) = timed(write_reports, run_dir)
        html = run_dir / "report.html"
        print(f"write_reports (summarize + render + write): {wall:.2f} s wall, {cpu:.2f} s CPU "
              f"({len(written)} files, report.html {html.stat().st_size / 1024:.0f} KiB)")
        print(f"peak RSS: {rss_before:.0f} MiB before, {peak_rss_mib():.0f} MiB after; "
              f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
        return 0
    finally:
        if args.keep is None:
            shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
