"""The reference beside a base/ figure: the same operation in a bare timed torch loop, no
harness, so that a harness figure far from it points at the harness, not the chip.

    python3 -m chipperf_runtime.base.reference gemm FP32 --size 512 [--seconds 1]
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
import time
from collections.abc import Callable

import torch

from chipperf_runtime.base.gemm import DTYPES, operands, precision
from chipperf_runtime.device.torch import TorchDevice, open_torch_device


def timed(fn: Callable[[], object], device: TorchDevice, seconds: float) -> tuple[int, float]:
    """Iterations and seconds of ``fn`` run for at least ``seconds`` after one warm-up call."""
    fn()
    device.synchronize()
    done, start = 0, time.perf_counter()
    while True:
        fn()
        done += 1
        if done % 4 == 0:
            device.synchronize()
            elapsed = time.perf_counter() - start
            if elapsed >= seconds:
                return done, elapsed


def gemm(device: TorchDevice, name: str, size: int, seconds: float) -> dict:
    precision(name, device)
    iterations, elapsed = timed(operands(name, size, size, size, device.device), device, seconds)
    return {"value": 2.0 * size ** 3 * iterations / elapsed / 1e12,
            "unit": "TOPS" if name == "INT8" else "TFLOP/s",
            "method": f"torch matmul {name} {size}^3, bare loop", "iterations": iterations,
            "seconds": elapsed}


def copy(device: TorchDevice, nbytes: int, seconds: float) -> dict:
    src = torch.ones(nbytes // 4, dtype=torch.float32, device=device.device)
    dst = torch.empty_like(src)
    if device.is_accelerator:
        fn: Callable[[], object] = lambda: dst.copy_(src)  # noqa: E731
    else:
        import numpy as np

        a, b = src.numpy(), dst.numpy()
        fn = lambda: np.copyto(b, a)  # noqa: E731
    iterations, elapsed = timed(fn, device, seconds)
    return {"value": 2.0 * src.numel() * 4 * iterations / elapsed / 1e9, "unit": "GB/s",
            "method": f"whole-buffer copy of {nbytes} bytes, bare loop",
            "iterations": iterations, "seconds": elapsed}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python3 -m chipperf_runtime.base.reference")
    sub = parser.add_subparsers(dest="what", required=True)
    g = sub.add_parser("gemm")
    g.add_argument("dtype", choices=sorted(DTYPES))
    g.add_argument("--size", type=int, default=512)
    c = sub.add_parser("copy")
    c.add_argument("--bytes", type=int, default=1 << 26)
    for p in (g, c):
        p.add_argument("--seconds", type=float, default=1.0)
    args = parser.parse_args(argv)
    device = open_torch_device(0)
    result = gemm(device, args.dtype, args.size, args.seconds) if args.what == "gemm" else \
        copy(device, args.bytes, args.seconds)
    print(json.dumps({**result, "device": device.name()}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
