"""computation-<DTYPE>: dense GEMM throughput, C[M,N] = A[M,K] @ B[K,N], 2*M*N*K FLOPs each.

FP64/FP32/FP16/BF16 use ``torch.matmul`` with full-precision float32 (TF32 off); TF32 is
float32 with ``torch.set_float32_matmul_precision("high")`` on an accelerator; INT8 is
``torch._int_mm`` (int8 x int8 -> int32) with B column-major, the layout cuBLASLt's integer
tensor-core (IMMA) kernels take: with a row-major B the same call measured 132.6 TOPS on an
H100 (pytorch/pytorch#165230 reports the penalty); its sizes must satisfy its rule (M > 16,
K and N multiples of 8). With B so, one H100 measured 882 TOPS (44.6 % of its INT8 sheet
value); pytorch/pytorch#187094 reports that ``torch._int_mm`` calls cuBLASLt with no
workspace, which can keep it off cuBLASLt's faster kernels. The vendor config's ``int8_kernel:
inductor`` runs the same call through ``torch.compile(mode="max-autotune")``:
Inductor times cuBLASLt beside its own Triton GEMM templates and keeps the fastest;
``int8_kernel: cublaslt`` calls cublasLtMatmul itself with a workspace and the fastest of its
heuristic's algorithms (chipperf_runtime.base.nvidia.cublaslt), checked against ``torch._int_mm``.
FP8 is ``torch._scaled_mm`` on e4m3 operands (bf16 out). Each dtype is first tried once on a
small problem: an error there, or the device layer saying the dtype is not supported, makes
the spec unsupported with that reason. FINISHED's
``method.kernel`` names what ran (``kernel``).

On the host CPU a host is one chip: its local rank 0 runs the GEMM on every usable core
(``use_cores``), the other local ranks sit out, and FP32/FP64 time numpy's GEMM of the same
sizes on as many threads right after the window (``references``; chipperf_runtime.base.blas).
"""

from __future__ import annotations

from collections.abc import Callable

import torch

from chipperf_runtime.base import blas
from chipperf_runtime.base.bare import beside, timed
from chipperf_runtime.base.device import allocate, check_fits, facts, open_device
from chipperf_runtime.bench.case import BenchCase, BenchError, Unsupported, common_finished
from chipperf_runtime.bench.peaks import flops_peak, share
from chipperf_runtime.device import usable_cores
from chipperf_runtime.device.torch import TorchDevice
from chipperf_runtime.timing import Loop, run_window, warm

# FlagPerf dtype name -> (torch dtype of the operands, spec-sheet dtype)
DTYPES: dict[str, tuple[torch.dtype, str]] = {
    "FP64": (torch.float64, "fp64"), "FP32": (torch.float32, "fp32"),
    "TF32": (torch.float32, "tf32"), "FP16": (torch.float16, "fp16"),
    "BF16": (torch.bfloat16, "bf16"), "INT8": (torch.int8, "int8"),
    "FP8": (torch.float8_e4m3fn, "fp8"),
}


INT8_KERNELS = ("int_mm", "cublaslt", "inductor")


def operands(name: str, m: int, n: int, k: int, device: torch.device, int8_kernel: str = "int_mm"
             ) -> Callable[[], torch.Tensor]:
    """The GEMM of dtype ``name`` on fresh operands, as a no-argument callable (INT8: through
    ``int8_kernel``, one of INT8_KERNELS)."""
    dtype = DTYPES[name][0]
    if name == "INT8":
        a, b = int8_operands(m, n, k, device)
        if int8_kernel == "inductor":
            tuned = torch.compile(torch._int_mm, mode="max-autotune", dynamic=False)
            return lambda: tuned(a, b)
        if int8_kernel == "cublaslt":
            from chipperf_runtime.base.nvidia import cublaslt

            try:
                return cublaslt.int8_matmul(a, b)
            except cublaslt.CublasLtError as exc:
                raise BenchError(f"int8_kernel cublaslt: {exc}: set int8_kernel: int_mm in the "
                                 "vendor config") from exc
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


def int8_operands(m: int, n: int, k: int, device: torch.device
                  ) -> tuple[torch.Tensor, torch.Tensor]:
    """Random int8 A[M,K] row-major and B[K,N] column-major (a view of a contiguous [N,K])."""
    a = torch.randint(-128, 128, (m, k), dtype=torch.int8, device=device)
    return a, torch.randint(-128, 128, (n, k), dtype=torch.int8, device=device).t()


def int8_size_problems(m: int, n: int, k: int) -> list[str]:
    """What breaks ``torch._int_mm``'s size rule (ATen's checks: M > 16, K and N positive
    multiples of 8), one line each; [] when the sizes fit."""
    problems = [] if m > 16 else [f"M={m} must be above 16"]
    return problems + [f"{what}={v} must be a positive multiple of 8"
                       for what, v in (("K", k), ("N", n)) if v <= 0 or v % 8]


def kernel(name: str, device: TorchDevice, int8_kernel: str = "int_mm") -> str:
    """The call a dtype's GEMM makes and, for INT8, the library kernel it reaches here."""
    if name == "FP8":
        return "torch._scaled_mm, e4m3 x e4m3 -> bf16, B column-major"
    if name != "INT8":
        return f"torch.matmul, {DTYPES[name][0]}"
    if int8_kernel == "cublaslt":
        from chipperf_runtime.base.nvidia.cublaslt import WORKSPACE_BYTES

        return ("cublasLtMatmul called directly, int8 x int8 -> int32, B column-major (TN), "
                f"{WORKSPACE_BYTES >> 20} MiB workspace, the fastest of cuBLASLt's heuristic "
                "candidates, checked against torch._int_mm")
    if int8_kernel == "inductor":
        return ("torch.compile(torch._int_mm, mode='max-autotune'), int8 x int8 -> "
                "int32, B column-major: the fastest of Inductor's GEMM templates and "
                f"{device.int_mm_path()}")
    return f"torch._int_mm, int8 x int8 -> int32, B column-major: {device.int_mm_path()}"


def int8_kernel_of(case: BenchCase, name: str) -> str:
    """The vendor config's ``int8_kernel`` (INT8 only; default int_mm), checked."""
    chosen = case.setting("int8_kernel", "int_mm", str)
    if chosen not in INT8_KERNELS:
        raise BenchError(f"{case.name}: int8_kernel {chosen!r} is not one of "
                         f"{', '.join(INT8_KERNELS)}: fix the vendor config")
    return chosen if name == "INT8" else "int_mm"


def check_sizes(case: BenchCase, name: str, m: int, n: int, k: int) -> None:
    problems = int8_size_problems(m, n, k) if name == "INT8" else []
    if problems:
        raise BenchError(f"{case.name}: torch._int_mm cannot take {m}x{k}x{n}: "
                         f"{'; '.join(problems)}: change M, N, K in the vendor config")


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
    if not device.is_accelerator and case.local_rank > 0:
        return      # a host's CPU is one chip: its local rank 0 measures it with every core
    threads = use_cores(case, device)
    precision(name, device)
    probe(name, device)
    m, n, k = (case.setting(x, 4096) for x in ("M", "N", "K"))
    check_sizes(case, name, m, n, k)
    int8_kernel = int8_kernel_of(case, name)
    loop = Loop(case.setting("warmup", 3), case.setting("iters", 10),
                case.setting("min_time_s", 1.0, float))
    size = DTYPES[name][0].itemsize
    need = (m * k + k * n) * size + m * n * max(size, 2 if name == "FP8" else size)
    check_fits(case, device, need, f"a {m}x{k}x{n} {name} GEMM")
    gemm = allocate(case, need, f"a {m}x{k}x{n} {name} GEMM",
                    lambda: operands(name, m, n, k, device.device, int8_kernel))
    warm(gemm, device.synchronize, loop)
    case.ready(facts(case, device))
    with case.window(device.synchronize):
        timed = run_window(gemm, device.synchronize, loop)
    flops = 2.0 * m * n * k * timed.iterations
    tflops = flops / timed.seconds / 1e12
    peak = flops_peak(case.vendor, case.chip, DTYPES[name][1])
    memory = device.max_memory_allocated()
    tuning = {"tuning": gemm.describe()} if hasattr(gemm, "describe") else {}   # cublaslt's
    del gemm                                      # the references allocate their own operands
    case.finish({
        "spec": case.name, "world_size": 1, "ranks_measuring": measuring(case, device),
        **common_finished(tflops, "TFLOP/s", flops, "FLOP", timed.seconds,
                          DTYPES[name][1], 1.0, memory),
        "converged": True,
        "method": {"what": "C = A @ B, 2*M*N*K FLOPs per GEMM", "M": m, "N": n, "K": k,
                   "dtype": name, "kernel": kernel(name, device, int8_kernel), "threads": threads,
                   **tuning,
                   **loop.describe(), "iterations": timed.iterations,
                   "timing": "wall clock over the whole loop, device synchronized at both ends"},
        **share(tflops * 1e12, peak), **references(case, device, name, (m, n, k), tflops, int8_kernel),
    })


def use_cores(case: BenchCase, device: TorchDevice) -> int | None:
    """On the host CPU, torch's threads for the GEMM: every usable core, or the vendor
    config's ``threads`` (torchrun's OMP_NUM_THREADS=1 for several ranks is not the chip's
    width). None on an accelerator."""
    if device.is_accelerator:
        return None
    threads = case.setting("threads", usable_cores())
    torch.set_num_threads(threads)
    return threads


def measuring(case: BenchCase, device: TorchDevice) -> int:
    """Processes that measured the GEMM: every rank on accelerators, one per host on the CPU."""
    return case.world_size if device.is_accelerator else \
        max(1, case.world_size // max(1, case.local_world_size))


def references(case: BenchCase, device: TorchDevice, name: str, mnk: tuple[int, int, int],
               tflops: float, int8_kernel: str = "int_mm") -> dict:
    """What is timed right after the window: the bare torch loop (``reference``) and, on the
    host CPU, numpy's GEMM of the same sizes with as many threads (``numpy_reference``,
    ``ratio_to_numpy``), or why there is none (``numpy_reference_reason``)."""
    out = beside(case, lambda s: bare_gemm(device, name, mnk[0], s, int8_kernel))
    why = "numpy runs on the host CPU, not on this device" if device.is_accelerator else \
        blas.why_none(name)
    if why:
        return {**out, "numpy_reference_reason": why}
    out.update(beside(
        case, lambda s: blas.measure_in_child(name, *mnk, s, torch.get_num_threads()),
        "numpy_reference", "numpy's GEMM"))
    if "numpy_reference" in out:
        out["ratio_to_numpy"] = tflops / out["numpy_reference"]["value"]
    return out


def bare_gemm(device: TorchDevice, name: str, size: int, seconds: float, int8_kernel: str = "int_mm"
              ) -> dict:
    """The GEMM of dtype ``name`` on ``size``^3 operands in base/'s loop, no case around it."""
    precision(name, device)
    run = timed(operands(name, size, size, size, device.device, int8_kernel), device, seconds)
    how = f" ({int8_kernel})" if name == "INT8" else ""
    return {"value": 2.0 * size ** 3 * run.iterations / run.seconds / 1e12,
            "unit": "TOPS" if name == "INT8" else "TFLOP/s",
            "method": f"torch matmul {name}{how} {size}^3, bare loop", "iterations": run.iterations,
            "seconds": run.seconds}
