"""Where a training case's time goes: its config under torch.profiler, top operators.

    python3 selfbench/case_profile.py --cases vit-pytorch,resnet50-pytorch [--steps 12]
        [--skip 2] [--threads N] [--top 8] [--data-root DIR]
    python3 selfbench/case_profile.py --cases gpt2-pytorch --vendor nvidia --chip H100 \
        --data-dir DIR --set timed_steps=8 --skip 4          # on a GPU machine: its kernels

The companion of ``case_efficiency.py`` (same cases, data, environment and arguments: one
rank of a 1x1 run of the case's ``run_pretraining.py`` with ``config_xeonx1x1.py`` and
``--set max_steps=N``). The entry runs in a child process; each of its compute regions (the
window case_efficiency's "compute" throughput is measured over: forward, backward, optimizer
step) after the first ``--skip`` (warm-up) runs inside ``torch.profiler.profile`` (CPU
activity), and the table is each operator's self CPU time as a share of all operators' self
time in those regions, with the share of the GEMM-shaped ones (matmuls and convolutions,
what the FLOP count is made of). PyTorch and
DeepSpeed cases only: paddle and tensorflow2 cases are named and skipped.

With ``--vendor nvidia`` the case runs its ``config_<chip>x1x1.py`` on the GPU and the
profiler records CUDA activity too: the table is each kernel's device time as a share of all
kernels' time in those regions, split into GEMM kernels (cuBLAS/cuBLASLt/CUTLASS names),
attention (flash/fmha), Inductor's fused Triton kernels and the rest, with the share of the
regions' wall time the GPU was busy (kernel time / wall time; one stream assumed).
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
import contextlib, json, os, runpy, sys, time
from torch.profiler import ProfilerActivity, profile
import chipperf_runtime.training.driver as driver
from chipperf_runtime.training.driver.windows import Windows
totals, seen, wall = {}, [0], [0.0]
skip, cuda = int(sys.argv.pop(1)), sys.argv.pop(1) == "cuda"
activities = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if cuda else [])
plain = Windows.computing
@contextlib.contextmanager
def computing(self):
    seen[0] += 1
    if seen[0] <= skip:                                   # warm-up: not profiled
        with plain(self):
            yield
        return
    with profile(activities=activities) as prof:
        started = time.perf_counter()
        with plain(self):
            yield
        if cuda:
            import torch
            torch.cuda.synchronize()
        wall[0] += (time.perf_counter() - started) * 1e6
    for e in prof.key_averages():
        spent = getattr(e, "self_device_time_total", 0) if cuda else e.self_cpu_time_total
        if spent:
            t = totals.setdefault(e.key, [0.0, 0])
            t[0] += spent
            t[1] += e.count
Windows.computing = computing
driver.run_case = lambda main, quick_exit=False: main()   # return here instead of exiting
sys.argv = sys.argv[1:]                                   # the entry and its arguments
sys.path.insert(0, os.path.dirname(sys.argv[0]))          # as python does for a script
runpy.run_path(sys.argv[0], run_name="__main__")
rows = sorted(([k, t, n] for k, (t, n) in totals.items()), key=lambda r: -r[1])
print("CASE_PROFILE " + json.dumps({"rows": rows, "wall_us": wall[0]}), flush=True)
"""


# kernel names (substrings, lower case) -> class, first match wins
KERNEL_CLASSES = (("attention", ("flash", "fmha", "attention", "sdpa")),
                  ("GEMM", ("gemm", "nvjet", "xmma", "cutlass", "wgmma", "cublas", "sm90_", "sm80_")),
                  ("fused Triton (Inductor)", ("triton_",)))


def profile_case(case: eff.Case, data_dir: Path, threads: int, steps: int | None,
                 skip: int, chip: eff.Chip = eff.XEON, sets: tuple[str, ...] = ()) -> dict:
    """``rows``: [op or kernel, self microseconds (CPU, or device time on a GPU), calls],
    largest first; ``wall_us``: the profiled regions' wall time."""
    with tempfile.TemporaryDirectory(prefix=f"profile-{case.name}-") as tmp:
        argv = eff.case_argv(case, data_dir, Path(tmp), threads, steps, chip)
        argv += [a for item in sets for a in ("--set", item)]
        mode = "cpu" if chip.vendor == "cpu" else "cuda"
        command = [sys.executable, "-c", CHILD, str(skip), mode, *argv[2:]]
        proc = subprocess.run(command, env=eff.case_env(case, threads, chip), cwd=tmp,
                              capture_output=True, text=True)
    lines = [line for line in proc.stdout.splitlines() if line.startswith("CASE_PROFILE ")]
    if proc.returncode != 0 or not lines:
        sys.exit(f"{case.name}: exit {proc.returncode}\n{(proc.stdout + proc.stderr)[-4000:]}")
    return dict(json.loads(lines[-1].removeprefix("CASE_PROFILE ")))


def kernel_class(name: str) -> str:
    low = name.lower()
    return next((cls for cls, keys in KERNEL_CLASSES if any(k in low for k in keys)), "other")


def gpu_report(case: eff.Case, found: dict, top: int) -> str:
    rows, wall = found["rows"], found.get("wall_us") or 0.0
    total = sum(r[1] for r in rows) or 1
    shares: dict[str, float] = {}
    for name, spent, _ in rows:
        shares[kernel_class(name)] = shares.get(kernel_class(name), 0.0) + spent
    head = [f"{case.name}: {total / 1e6:.3f} s of kernel time in {wall / 1e6:.3f} s of profiled "
            f"regions (GPU busy {100 * total / wall:.1f} %)" if wall else
            f"{case.name}: {total / 1e6:.3f} s of kernel time",
            "  by class: " + ", ".join(f"{cls} {100 * t / total:.1f}%" for cls, t in
                                        sorted(shares.items(), key=lambda kv: -kv[1]))]
    head += [f"  {100 * t / total:5.1f}%  {t / 1e3:9.2f} ms  {n:>7,} calls  "
             f"[{kernel_class(op)}] {op[:110]}" for op, t, n in rows[:top]]
    return "\n".join(head)


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
    p.add_argument("--vendor", default="cpu", help="cpu (default) or nvidia: the chip's own "
                   "config_<chip>x1x1.py on its device, with CUDA activity")
    p.add_argument("--chip", default="xeon", help="the vendor's chip (default xeon; nvidia: H100)")
    p.add_argument("--data-dir", type=Path, help="the case's data (default: its CI recipe "
                   "under --data-root)")
    p.add_argument("--set", action="append", default=[], metavar="NAME=VALUE",
                   help="a case parameter, passed as the case's --set (repeatable)")
    args = p.parse_args()
    chip = eff.Chip(args.vendor, "H100" if args.vendor == "nvidia" and args.chip == "xeon"
                    else args.chip)
    print(f"load average before: {os.getloadavg()[0]:.1f}; {args.threads} thread(s)", flush=True)
    for case in eff.pick(cases, args.cases):
        if case.name.rsplit("-", 1)[1] not in TORCH_FAMILIES:
            print(f"{case.name}: not a PyTorch case; skipped", flush=True)
            continue
        data = args.data_dir or eff.ensure_data(case.data, args.data_root)
        steps = args.steps if chip.vendor == "cpu" else None   # the chip's config sets its length
        found = profile_case(case, data, args.threads, steps, args.skip, chip, tuple(args.set))
        print(report(case, found["rows"], args.top) if chip.vendor == "cpu" else
              gpu_report(case, found, args.top), flush=True)
    print(f"load average after: {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
