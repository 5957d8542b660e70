"""The reference beside a base/ figure: the same operation in a bare timed torch loop, no
harness, so that a harness figure far from it points at the harness, not the chip.

    python3 -m chipperf_runtime.base.reference gemm FP32 --size 512 [--seconds 1]
    python3 -m chipperf_runtime.base.reference gemm INT8 --size 8192 --int8-kernel inductor
    python3 -m chipperf_runtime.base.reference copy --bytes 67108864 [--seconds 1]

GEMM: ``torch.matmul`` of two ``size x size`` operands in the dtype (INT8: ``torch._int_mm``),
2 x size^3 FLOPs each; copy: the device's whole-buffer copy (``dst.copy_(src)``; on the host
CPU numpy's memcpy, as base/ does), 2 x bytes moved. The device is the launch environment's
(``CHIPPERF_DEVICE``, as for a case). Prints one JSON line: value, unit, iterations, seconds.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable

import torch

from chipperf_runtime.base.gemm import DTYPES, INT8_KERNELS, operands, precision
from chipperf_runtime.base.memory import copier
from chipperf_runtime.bench.case import BenchCase
from chipperf_runtime.device.torch import TorchDevice, open_torch_device
from chipperf_runtime.timing import Loop, Timed, run_window, warm


def timed(fn: Callable[[], object], device: TorchDevice, seconds: float) -> Timed:
    """base/'s own loop (one warm-up call, batches of 4 until ``seconds``), without the case."""
    loop = Loop(warmup=1, iters=4, min_time_s=seconds)
    warm(fn, device.synchronize, loop)
    return run_window(fn, device.synchronize, loop)


def gemm(device: TorchDevice, name: str, size: int, seconds: float, int8_kernel: str = "int_mm"
         ) -> dict:
    precision(name, device)
    run = timed(operands(name, size, size, size, device.device, int8_kernel), device, seconds)
    how = f" ({int8_kernel})" if name == "INT8" else ""
    return {"value": 2.0 * size ** 3 * run.iterations / run.seconds / 1e12,
            "unit": "TOPS" if name == "INT8" else "TFLOP/s",
            "method": f"torch matmul {name}{how} {size}^3, bare loop", "iterations": run.iterations,
            "seconds": run.seconds}


def copy(device: TorchDevice, nbytes: int, seconds: float) -> dict:
    src = torch.ones(nbytes // 4, dtype=torch.float32, device=device.device)
    dst = torch.empty_like(src)
    fn, what = copier(device, dst, src)
    run = timed(fn, device, seconds)
    return {"value": 2.0 * src.numel() * 4 * run.iterations / run.seconds / 1e9, "unit": "GB/s",
            "method": f"{what}, {nbytes} bytes, bare loop", "iterations": run.iterations,
            "seconds": run.seconds}


def beside(case: BenchCase, measure: Callable[[float], dict], key: str = "reference",
           what: str = "the bare torch loop") -> dict:
    """FINISHED's ``<key>`` of a base/ case: ``measure(seconds)`` run right after the
    case's own window, on every rank as the window was, for the vendor config's
    ``reference_s`` (default 1 s; 0 leaves it out); or ``<key>_reason`` saying why none."""
    seconds = case.setting("reference_s", 1.0, float)
    if seconds <= 0:
        return {f"{key}_reason": f"reference_s is 0 in the vendor config: {what} was not timed"}
    try:
        return {key: measure(seconds)}
    except (RuntimeError, TypeError) as exc:   # the bare op failing is a fact, not a crash
        return {f"{key}_reason": f"{what} failed: {exc}"}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python3 -m chipperf_runtime.base.reference")
    sub = parser.add_subparsers(dest="what", required=True)
    g = sub.add_parser("gemm")
    g.add_argument("dtype", choices=sorted(DTYPES))
    g.add_argument("--size", type=int, default=512)
    g.add_argument("--int8-kernel", choices=INT8_KERNELS, default="int_mm",
                   help="INT8 only: torch._int_mm as it is, cuBLASLt called directly, or "
                        "torch._int_mm through Inductor's max-autotune")
    c = sub.add_parser("copy")
    c.add_argument("--bytes", type=int, default=1 << 26)
    for p in (g, c):
        p.add_argument("--seconds", type=float, default=1.0)
    args = parser.parse_args(argv)
    device = open_torch_device(0)
    result = gemm(device, args.dtype, args.size, args.seconds, args.int8_kernel) \
        if args.what == "gemm" else \
        copy(device, args.bytes, args.seconds)
    print(json.dumps({**result, "device": device.name()}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
