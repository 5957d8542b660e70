"""numpy's GEMM with every usable core: the reference a cpu base/ GEMM is measured beside.

    python3 -m chipperf_runtime.base.blas FP32 --m 2048 --n 2048 --k 2048 [--seconds 1]

``numpy.matmul`` of float32 or float64 operands runs the BLAS numpy was built with
(OpenBLAS in numpy's wheels). It runs in a child process whose BLAS thread count is set in
its environment before numpy loads (``OPENBLAS_NUM_THREADS`` and kin: the case process may
run under torchrun's ``OMP_NUM_THREADS=1``, and torch's own thread pool shares it), timed with
base/'s loop (``chipperf_runtime.timing``). Prints one JSON line: value (TFLOP/s), unit,
method, threads, blas, iterations, seconds. No torch here.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from typing import Any

from chipperf_runtime.device import usable_cores
from chipperf_runtime.timing import Loop, run_window, warm

NUMPY_DTYPES = {"FP32": "float32", "FP64": "float64"}
THREAD_VARIABLES = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS",
                    "BLIS_NUM_THREADS")


def why_none(name: str) -> str | None:
    """Why numpy cannot be the reference for dtype ``name``; None when it can."""
    if name in NUMPY_DTYPES:
        return None
    return (f"numpy has no BLAS GEMM in {name} (only {', '.join(NUMPY_DTYPES)}): no numpy "
            "figure beside it")


def measure_in_child(name: str, m: int, n: int, k: int, seconds: float,
                     threads: int | None = None) -> dict[str, Any]:
    """``numpy_gemm`` in a child process with ``threads`` BLAS threads (default: every usable
    core); a child failing raises RuntimeError with its last line of stderr."""
    threads = threads or usable_cores()
    env = {**os.environ, **{v: str(threads) for v in THREAD_VARIABLES}}
    argv = [sys.executable, "-m", __name__, name, "--m", str(m), "--n", str(n), "--k", str(k),
            "--seconds", str(seconds)]
    done = subprocess.run(argv, env=env, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or [f"exit {done.returncode}"])[-1]
        raise RuntimeError(f"numpy GEMM child ({' '.join(argv[1:])}) failed: {last}")
    return {**json.loads(done.stdout.strip().splitlines()[-1]), "threads": threads}


def numpy_gemm(name: str, m: int, n: int, k: int, seconds: float) -> dict[str, Any]:
    """numpy.matmul of A[M,K] @ B[K,N] in this process, base/'s loop for ``seconds``."""
    import numpy as np

    rng = np.random.default_rng(0)
    dtype = NUMPY_DTYPES[name]
    a = rng.standard_normal((m, k)).astype(dtype)
    b = rng.standard_normal((k, n)).astype(dtype)
    out = np.empty((m, n), dtype)
    loop = Loop(warmup=1, iters=1, min_time_s=seconds)
    gemm = lambda: np.matmul(a, b, out=out)  # noqa: E731
    warm(gemm, lambda: None, loop)
    run = run_window(gemm, lambda: None, loop)
    blas = _blas_name(np)
    return {"value": 2.0 * m * n * k * run.iterations / run.seconds / 1e12, "unit": "TFLOP/s",
            "method": f"numpy.matmul {dtype} {m}x{k}x{n} ({blas}), bare loop", "blas": blas,
            "numpy_version": np.__version__, "iterations": run.iterations,
            "seconds": run.seconds}


def _blas_name(np: Any) -> str:
    """numpy's BLAS as its build configuration names it ("scipy-openblas 0.3.31...")."""
    try:
        blas = np.show_config(mode="dicts")["Build Dependencies"]["blas"]
        return f"{blas.get('name', '?')} {blas.get('version', '')}".strip()
    except (TypeError, KeyError, AttributeError):   # numpy < 1.26 has no mode="dicts"
        return "numpy's BLAS (unnamed by this numpy)"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog=f"python3 -m {__name__}")
    parser.add_argument("dtype", choices=sorted(NUMPY_DTYPES))
    for size in ("m", "n", "k"):
        parser.add_argument(f"--{size}", type=int, default=2048)
    parser.add_argument("--seconds", type=float, default=1.0)
    args = parser.parse_args(argv)
    print(json.dumps(numpy_gemm(args.dtype, args.m, args.n, args.k, args.seconds)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
