"""base/ GEMM fp32 and memory bandwidth beside numpy references measured in the same run.

    python benchmarks/base_reference.py [--size 1024] [--bytes 268435456] [--repeat 3]

Runs base/'s computation-FP32 and main_memory-bandwidth programs on the cpu vendor (as a
case rank, through their PerfLog) and, alternating with them, numpy's float32 matmul
(OpenBLAS) on the same M=N=K and ``np.copyto`` of the same buffer size (2 x bytes moved
per copy, base/'s convention). Prints the best of ``repeat`` for each and the ratio
chipperf / reference; the target is >= 0.95 (the suite measures the hardware, not itself).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]


def chipperf_figure(spec: str, settings: str) -> float:
    with tempfile.TemporaryDirectory() as tmp:
        Path(tmp, "cpu_configuration.yaml").write_text(settings)
        env = {**os.environ, "PYTHONPATH": f"{REPO}:{REPO / 'base' / 'benchmarks'}",
               "CHIPPERF_VENDOR": "cpu", "CHIPPERF_DEVICE": "cpu"}
        done = subprocess.run([sys.executable, str(REPO / "base" / "benchmarks" / spec / "pytorch"
                                                   / "main.py"), "--extern_config_dir", tmp,
                               "--extern_config_file", "cpu_configuration.yaml"],
                              env=env, capture_output=True, text=True, check=True)
    line = [x for x in done.stdout.splitlines() if '"event": "FINISHED"' in x][-1]
    return float(json.loads(line.split("[PerfLog] ", 1)[1])["value"]["value"])


def numpy_gemm_tflops(n: int, iters: int, min_time_s: float) -> float:
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((n, n), np.float32), rng.standard_normal((n, n), np.float32)
    out = np.empty((n, n), np.float32)
    np.matmul(a, b, out=out)
    done, start = 0, time.perf_counter()
    while True:
        for _ in range(iters):
            np.matmul(a, b, out=out)
        done += iters
        elapsed = time.perf_counter() - start
        if elapsed >= min_time_s:
            return 2.0 * n ** 3 * done / elapsed / 1e12


def numpy_copy_gbs(size: int, iters: int, min_time_s: float) -> float:
    src, dst = np.ones(size // 4, np.float32), np.empty(size // 4, np.float32)
    np.copyto(dst, src)
    done, start = 0, time.perf_counter()
    while True:
        for _ in range(iters):
            np.copyto(dst, src)
        done += iters
        elapsed = time.perf_counter() - start
        if elapsed >= min_time_s:
            return 2.0 * size * done / elapsed / 1e9


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--size", type=int, default=1024, help="M = N = K of the GEMM")
    p.add_argument("--bytes", type=int, default=1 << 28, help="copy buffer size")
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--min-time", type=float, default=2.0)
    a = p.parse_args()
    common = f"defaults:\n  warmup: 2\n  iters: 5\n  min_time_s: {a.min_time}\n"
    gemm = common + f"computation:\n  M: {a.size}\n  N: {a.size}\n  K: {a.size}\n"
    copy = common + f"main_memory-bandwidth:\n  bytes: {a.bytes}\n"
    rows = {"GEMM fp32 (TFLOP/s)": ([], []), "memory copy (GB/s)": ([], [])}
    for _ in range(a.repeat):
        rows["GEMM fp32 (TFLOP/s)"][0].append(chipperf_figure("computation-FP32", gemm))
        rows["GEMM fp32 (TFLOP/s)"][1].append(numpy_gemm_tflops(a.size, 5, a.min_time))
        rows["memory copy (GB/s)"][0].append(chipperf_figure("main_memory-bandwidth", copy))
        rows["memory copy (GB/s)"][1].append(numpy_copy_gbs(a.bytes, 5, a.min_time))
    print(f"numpy {np.__version__}, {os.cpu_count()} CPUs; best of {a.repeat}")
    print(f"{'figure':<22} {'chipperf':>10} {'numpy':>10} {'ratio':>7}")
    for name, (ours, ref) in rows.items():
        print(f"{name:<22} {max(ours):>10.4g} {max(ref):>10.4g} {max(ours) / max(ref):>7.3f}")


if __name__ == "__main__":
    main()
