"""computation-<DTYPE>: dense GEMM throughput, C[M,N] = A[M,K] @ B[K,N], 2*M*N*K FLOPs each.

FP64/FP32/FP16/BF16 use ``torch.matmul`` with full-precision float32 (TF32 off); TF32 is
float32 with ``torch.set_float32_matmul_precision("high")`` on an accelerator; INT8 is
``torch._int_mm`` (int32 accumulate); FP8 is ``torch._scaled_mm`` on e4m3 operands (bf16
out). Each dtype is first tried once on a small problem: an error there, or the device
layer saying the dtype is not supported, makes the spec unsupported with that reason.
"""

from __future__ import annotations

from collections.abc import Callable

import torch

from chipperf_runtime.base.device import allocate, check_fits, facts, open_device
from chipperf_runtime.bench.case import BenchCase, Unsupported, common_finished
from chipperf_runtime.bench.peaks import flops_peak, share
from chipperf_runtime.bench.timing import Loop, run_window, warm
from chipperf_runtime.device.torch import TorchDevice

# FlagPerf dtype name -> (torch dtype of the operands, spec-sheet dtype)
DTYPES: dict[str, tuple[torch.dtype, str]] = {
    "FP64": (torch.float64, "fp64"), "FP32": (torch.float32, "fp32"),
    "TF32": (torch.float32, "tf32"), "FP16": (torch.float16, "fp16"),
    "BF16": (torch.bfloat16, "bf16"), "INT8": (torch.int8, "int8"),
    "FP8": (torch.float8_e4m3fn, "fp8"),
}


def operands(name: str, m: int, n: int, k: int, device: torch.device
             ) -> Callable[[], torch.Tensor]:
    """The GEMM of dtype ``name`` on fresh operands, as a no-argument callable."""
    dtype = DTYPES[name][0]
    if name == "INT8":
        a = torch.randint(-128, 128, (m, k), dtype=torch.int8, device=device)
        b = torch.randint(-128, 128, (k, n), dtype=torch.int8, device=device)
        return lambda: torch._int_mm(a, b)
    if name == "FP8":
        a = torch.randn(m, k, device=device).to(dtype)
        b = torch.randn(n, k, device=device).to(dtype).t()      # column-major, as required
        one = torch.tensor(1.0, device=device)
        return lambda: torch._scaled_mm(a, b, scale_a=one, scale_b=one, out_dtype=torch.bfloat16)
    a = torch.randn(m, k, device=device, dtype=dtype)
    b = torch.randn(k, n, device=device, dtype=dtype)
    out = torch.empty(m, n, device=device, dtype=dtype)
    return lambda: torch.matmul(a, b, out=out)


def precision(name: str, device: TorchDevice) -> None:
    """Set float32 matmul precision for the dtype; TF32 needs an accelerator's tensor cores."""
    if name == "TF32":
        if not device.is_accelerator:
            raise Unsupported(f"TF32 on {device.device}: TF32 is an accelerator matrix-unit "
                              "format; this device computes float32 matmuls in full fp32 only")
        torch.set_float32_matmul_precision("high")
    else:
        torch.set_float32_matmul_precision("highest")


def probe(name: str, device: TorchDevice) -> None:
    """Unsupported, with the framework's reason, when the dtype's GEMM cannot run here."""
    dtype = DTYPES[name][0]
    if not device.supports_dtype(dtype):
        raise Unsupported(f"{name} on {device.name()}: the device layer reports {dtype} "
                          "unsupported")
    try:
        operands(name, 32, 32, 32, device.device)()
        device.synchronize()
    except (RuntimeError, NotImplementedError, TypeError) as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise Unsupported(f"{name} GEMM on {device.name()} with torch {torch.__version__}: "
                          f"{first}") from exc


def measure(case: BenchCase) -> None:
    name = case.name.split("-", 1)[1]
    device = open_device(case)
    precision(name, device)
    probe(name, device)
    m, n, k = (case.setting(x, 4096) for x in ("M", "N", "K"))
    loop = Loop(case.setting("warmup", 3), case.setting("iters", 10),
                case.setting("min_time_s", 1.0, float))
    size = DTYPES[name][0].itemsize
    need = (m * k + k * n) * size + m * n * max(size, 2 if name == "FP8" else size)
    check_fits(case, device, need, f"a {m}x{k}x{n} {name} GEMM")
    gemm = allocate(case, need, f"a {m}x{k}x{n} {name} GEMM",
                    lambda: operands(name, m, n, k, device.device))
    warm(gemm, device.synchronize, loop)
    case.ready(facts(case, device))
    with case.window(device.synchronize):
        timed = run_window(gemm, device.synchronize, loop)
    flops = 2.0 * m * n * k * timed.iterations
    tflops = flops / timed.seconds / 1e12
    peak = flops_peak(case.vendor, case.chip, DTYPES[name][1])
    memory = device.max_memory_allocated()
    del gemm                                      # the reference allocates its own operands
    from chipperf_runtime.base import reference  # it imports this module

    bare = reference.beside(case, lambda s: reference.gemm(device, name, m, s))
    case.finish({
        "spec": case.name, "world_size": 1, "ranks_measuring": case.world_size,
        **common_finished(tflops, "TFLOP/s", flops, "FLOP", timed.seconds,
                          DTYPES[name][1], 1.0, memory),
        "converged": True,
        "method": {"what": "C = A @ B, 2*M*N*K FLOPs per GEMM", "M": m, "N": n, "K": k,
                   "dtype": name, **loop.describe(), "iterations": timed.iterations,
                   "timing": "wall clock over the whole loop, device synchronized at both ends"},
        **share(tflops * 1e12, peak), **bare,
    })
