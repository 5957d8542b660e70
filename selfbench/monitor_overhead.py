#!/usr/bin/env python3
"""What the monitor sidecar costs: its CPU time, and a CPU-bound workload's throughput
with and without it.

    python3 selfbench/monitor_overhead.py [--duration 60] [--interval 1] [--vendor cpu]
                                           [--pairs 30] [--cpu 0 | --cpu none] [--keep DIR]

It starts ``python3 -m chipperf_runtime.monitors`` as a separate process and, once that is
sampling, measures in two phases:

A. the sidecar runs untouched for ``--duration`` seconds at ``--interval`` while the
   workload runs back to back beside it; its CPU time (utime+stime, plus
   cutime+cstime of tools it spawned, from /proc/<pid>/stat) over that time is its
   share of one core (start-up, i.e. imports and sys_info.json, reported apart);
B. ``--pairs`` pairs of workload runs, one with the sidecar running and one with it
   paused (SIGSTOP: it takes no CPU at all), alternated so that slow changes in the
   machine's other load hit both sides alike; the throughput is the ratio of the
   medians with / without. (On resuming, the sidecar samples the tick it missed at
   once, so the "with" side sees slightly more than its usual rate: conservative.)

By default the workload and the sidecar are pinned to the same core, the worst
case: every cycle the sidecar takes is one the workload loses.

Targets: sidecar under 1% of one core; throughput within 1%.
"""

from __future__ import annotations

import argparse
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
CLK_TCK = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float:
    """utime + stime + cutime + cstime of a process, in seconds (/proc/<pid>/stat)."""
    text = Path(f"/proc/{pid}/stat").read_text()
    fields = text[text.rindex(")") + 2:].split()  # after "pid (comm) "
    utime, stime, cutime, cstime = (int(f) for f in fields[11:15])
    return (utime + stime + cutime + cstime) / CLK_TCK


def workload(iterations: int) -> float:
    """A fixed CPU-bound job; returns its throughput in iterations per second."""
    began = time.perf_counter()
    total = 0
    for i in range(iterations):
        total += (i * i) % 7
    elapsed = time.perf_counter() - began
    assert total >= 0
    return iterations / elapsed


def calibrate(target_s: float = 0.5) -> int:
    iterations = 200_000
    while True:
        began = time.perf_counter()
        workload(iterations)
        took = time.perf_counter() - began
        if took >= 0.1:
            return max(1, int(iterations * target_s / took))
        iterations *= 4


# The sidecar with psutil made unimportable: the cpu and mem sources parse /proc themselves.
WITHOUT_PSUTIL = ("import runpy, sys; sys.modules['psutil'] = None; "
                  "sys.argv[0] = 'chipperf_runtime.monitors'; "
                  "runpy.run_module('chipperf_runtime.monitors', run_name='__main__')")


def start_sidecar(out: Path, interval: float, vendor: str,
                  without_psutil: bool = False) -> subprocess.Popen[bytes]:
    env = dict(os.environ, PYTHONPATH=f"{REPO}{os.pathsep}{os.environ.get('PYTHONPATH', '')}")
    entry = ["-c", WITHOUT_PSUTIL] if without_psutil else ["-m", "chipperf_runtime.monitors"]
    return subprocess.Popen([sys.executable, *entry, "--out", str(out),
                             "--interval", str(interval), "--vendor", vendor],
                            env=env, stdin=subprocess.DEVNULL)


def wait_sampling(out: Path, timeout_s: float = 60.0) -> None:
    log = out / "mem_monitor.log"
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if log.exists() and log.read_text().count('"used_bytes"') >= 1:
            return
        time.sleep(0.05)
    raise SystemExit("the sidecar wrote no sample in 60 s")


def measure(args: argparse.Namespace, out: Path) -> dict[str, float]:
    cpu = None if args.cpu == "none" else int(args.cpu)
    if cpu is not None:
        os.sched_setaffinity(0, {cpu})
    iterations = calibrate()
    launched = time.monotonic()
    sidecar = start_sidecar(out, args.interval, args.vendor, args.without_psutil)
    if cpu is not None:
        os.sched_setaffinity(sidecar.pid, {cpu})
    try:
        wait_sampling(out)
        startup_cpu, startup_wall = cpu_seconds(sidecar.pid), time.monotonic() - launched
        samples_before, began = _samples(out), time.monotonic()
        while time.monotonic() - began < args.duration:  # phase A
            workload(iterations)
        phase_a_s = time.monotonic() - began
        phase_a_cpu = cpu_seconds(sidecar.pid) - startup_cpu
        phase_a_samples = _samples(out) - samples_before
        with_, without = [], []
        for _ in range(args.pairs):  # phase B
            with_.append(workload(iterations))
            os.kill(sidecar.pid, signal.SIGSTOP)
            without.append(workload(iterations))
            os.kill(sidecar.pid, signal.SIGCONT)
    finally:
        os.kill(sidecar.pid, signal.SIGCONT)
        sidecar.terminate()
        sidecar.wait(timeout=30)
    return {"startup_cpu_s": startup_cpu, "startup_wall_s": startup_wall,
            "steady_cpu_s": phase_a_cpu, "running_s": phase_a_s, "samples": phase_a_samples,
            "iterations": iterations, "with_median": statistics.median(with_),
            "without_median": statistics.median(without), "runs": len(with_),
            "with_spread": _spread(with_), "without_spread": _spread(without),
            "pair_ratio_median": statistics.median(w / o for w, o in zip(with_, without))}


def _spread(values: list[float]) -> float:
    """Interquartile range as a share of the median (how noisy one side was)."""
    q1, _, q3 = statistics.quantiles(values, n=4)
    return (q3 - q1) / statistics.median(values)


def _samples(out: Path) -> int:
    return (out / "mem_monitor.log").read_text().count('"used_bytes"')


def report(args: argparse.Namespace, r: dict[str, float]) -> str:
    share = 100.0 * r["steady_cpu_s"] / r["running_s"]
    ratio = r["with_median"] / r["without_median"]
    pinned = f"all on CPU {args.cpu}" if args.cpu != "none" else "not pinned"
    return "\n".join([
        f"sidecar: python3 -m chipperf_runtime.monitors --interval {args.interval:g} --vendor "
        f"{args.vendor} ({pinned}; cpu/mem read "
        f"{'from /proc, psutil blocked' if args.without_psutil else 'through psutil'})",
        f"sidecar start-up (imports, sys_info.json, first tick): {r['startup_cpu_s']:.3f} s CPU "
        f"in {r['startup_wall_s']:.2f} s",
        f"phase A, sidecar running {r['running_s']:.1f} s beside the workload, "
        f"{r['samples']:.0f} mem samples written: {r['steady_cpu_s']:.3f} s CPU = "
        f"{share:.3f}% of one core (target < 1%: {'PASS' if share < 1 else 'FAIL'})",
        f"phase B, pure-Python loop of {r['iterations']:.0f} iterations, {r['runs']:.0f} runs "
        f"each way, alternated:",
        f"  median throughput, sidecar paused:  {r['without_median'] / 1e6:.3f} M it/s "
        f"(IQR {100 * r['without_spread']:.2f}% of median)",
        f"  median throughput, sidecar running: {r['with_median'] / 1e6:.3f} M it/s "
        f"(IQR {100 * r['with_spread']:.2f}% of median)",
        f"  ratio running/paused: {ratio:.4f} ({(ratio - 1) * 100:+.2f}%; target within 1%: "
        f"{'PASS' if abs(ratio - 1) <= 0.01 else 'FAIL'})",
        f"  median of the per-pair ratios: {r['pair_ratio_median']:.4f}",
    ])


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--duration", type=float, default=60.0,
                        help="seconds the sidecar runs (default 60)")
    parser.add_argument("--interval", type=float, default=1.0)
    parser.add_argument("--pairs", type=int, default=30,
                        help="alternated with/without workload pairs (default 30)")
    parser.add_argument("--vendor", default="cpu")
    parser.add_argument("--cpu", default="0", help="core to pin both to, or 'none'")
    parser.add_argument("--keep", type=Path, help="keep the sidecar's files here")
    parser.add_argument("--without-psutil", action="store_true",
                        help="make psutil unimportable in the sidecar, so the cpu and mem "
                             "sources parse /proc themselves (compare the two readers)")
    return parser.parse_args(argv)


def main(argv: list[str]) -> int:
    args = parse_args(argv)
    if args.keep:
        args.keep.mkdir(parents=True, exist_ok=True)
        print(report(args, measure(args, args.keep)))
        return 0
    with tempfile.TemporaryDirectory(prefix="chipperf-overhead-") as tmp:
        print(report(args, measure(args, Path(tmp))))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
