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

from chipperf_runtime.base.bare import beside, timed
from chipperf_runtime.base.gemm import DTYPES, INT8_KERNELS, bare_gemm
from chipperf_runtime.base.memory import bare_copy
from chipperf_runtime.device.torch import open_torch_device

__all__ = ["bare_copy", "bare_gemm", "beside", "main", "timed"]   # the reference's parts, by name


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
    result = bare_gemm(device, args.dtype, args.size, args.seconds, args.int8_kernel) \
        if args.what == "gemm" else \
        bare_copy(device, args.bytes, args.seconds)
    print(json.dumps({**result, "device": device.name()}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
