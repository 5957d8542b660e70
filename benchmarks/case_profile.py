"""Where a training case's CPU time goes: its CI config under torch.profiler, top operators.

    python3 benchmarks/case_profile.py --cases vit-pytorch,resnet50-pytorch [--steps 12]
        [--skip 2] [--threads N] [--top 8] [--data-root DIR]

The companion of ``case_efficiency.py`` (same cases, data, environment and arguments: one
rank of a 1x1 run of the case's ``run_pretraining.py`` with ``config_xeonx1x1.py`` and
``--set max_steps=N``). The entry runs in a child process; each of its compute regions (the
window case_efficiency's "compute" throughput is measured over: forward, backward, optimizer
step) after the first ``--skip`` (warm-up) runs inside ``torch.profiler.profile`` (CPU
activity), and the table is each operator's self CPU time as a share of all operators' self
time in those regions, with the share of the GEMM-shaped ones (matmuls and convolutions,
what the FLOP count is made of). PyTorch and
DeepSpeed cases only: paddle and tensorflow2 cases are named and skipped.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import case_efficiency as eff

TORCH_FAMILIES = ("pytorch", "deepspeed")
GEMM_OPS = ("aten::mm", "aten::addmm", "aten::bmm", "aten::baddbmm", "aten::mkldnn_convolution",
            "aten::convolution_backward", "aten::_convolution", "aten::linear_backward")

# Runs in the child: the case's entry with each compute region (driver.compute(): forward,
# backward, optimizer step) under its own profiler; prints one JSON line with the totals.
CHILD = r"""
import contextlib, json, os, runpy, sys
from torch.profiler import ProfilerActivity, profile
import chipperf_runtime.training.driver as driver
from chipperf_runtime.training.driver.windows import Windows
totals, seen, skip = {}, [0], int(sys.argv.pop(1))
plain = Windows.computing
@contextlib.contextmanager
def computing(self):
    seen[0] += 1
    if seen[0] <= skip:                                   # warm-up: not profiled
        with plain(self):
            yield
        return
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        with plain(self):
            yield
    for e in prof.key_averages():
        t = totals.setdefault(e.key, [0.0, 0])
        t[0] += e.self_cpu_time_total
        t[1] += e.count
Windows.computing = computing
driver.run_case = lambda main, quick_exit=False: main()   # return here instead of exiting
sys.argv = sys.argv[1:]                                   # the entry and its arguments
sys.path.insert(0, os.path.dirname(sys.argv[0]))          # as python does for a script
runpy.run_path(sys.argv[0], run_name="__main__")
rows = sorted(([k, t, n] for k, (t, n) in totals.items()), key=lambda r: -r[1])
print("CASE_PROFILE " + json.dumps({"rows": rows}), flush=True)
"""


def profile_case(case: eff.Case, data_dir: Path, threads: int, steps: int,
                 skip: int) -> list[list]:
    """[op, self CPU microseconds, calls] of every operator, largest first."""
    with tempfile.TemporaryDirectory(prefix=f"profile-{case.name}-") as tmp:
        argv = eff.case_argv(case, data_dir, Path(tmp), threads, steps)
        command = [sys.executable, "-c", CHILD, str(skip), *argv[2:]]
        proc = subprocess.run(command, env=eff.case_env(case, threads), cwd=tmp,
                              capture_output=True, text=True)
    lines = [line for line in proc.stdout.splitlines() if line.startswith("CASE_PROFILE ")]
    if proc.returncode != 0 or not lines:
        sys.exit(f"{case.name}: exit {proc.returncode}\n{(proc.stdout + proc.stderr)[-4000:]}")
    return json.loads(lines[-1].removeprefix("CASE_PROFILE "))["rows"]


def report(case: eff.Case, rows: list[list], top: int) -> str:
    total = sum(r[1] for r in rows) or 1
    gemm = sum(r[1] for r in rows if r[0] in GEMM_OPS)
    head = [f"{case.name}: {total / 1e6:.1f} s of operator self CPU time; matmul + convolution "
            f"{100 * gemm / total:.1f}%"]
    head += [f"  {100 * t / total:5.1f}%  {t / 1e6:7.2f} s  {n:>8,} calls  {op}"
             for op, t, n in rows[:top]]
    return "\n".join(head)


def main() -> int:
    cases, _ = eff.discover()
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--cases", required=True, help="comma-separated: " +
                   ",".join(c.name for c in cases))
    p.add_argument("--steps", type=int, default=12, help="optimizer steps the case runs")
    p.add_argument("--skip", type=int, default=2,
                   help="compute regions left out first (warm-up: oneDNN primitive creation)")
    p.add_argument("--threads", type=int, default=len(os.sched_getaffinity(0)))
    p.add_argument("--top", type=int, default=8)
    p.add_argument("--data-root", type=Path, default=eff.DATA_ROOT)
    args = p.parse_args()
    print(f"load average before: {os.getloadavg()[0]:.1f}; {args.threads} thread(s)", flush=True)
    for case in eff.pick(cases, args.cases):
        if case.name.rsplit("-", 1)[1] not in TORCH_FAMILIES:
            print(f"{case.name}: not a PyTorch case; skipped", flush=True)
            continue
        rows = profile_case(case, eff.ensure_data(case.data, args.data_root), args.threads,
                            args.steps, args.skip)
        print(report(case, rows, args.top), flush=True)
    print(f"load average after: {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
