"""INT8 GEMM through NVIDIA's cuBLASLt, called directly (ctypes), as base/'s
``int8_kernel: cublaslt``.

``torch._int_mm`` reaches cuBLASLt too, but calls ``cublasLtMatmul`` with no algorithm and no
workspace (pytorch/pytorch#187094), which keeps cuBLASLt off its workspace-using kernels: on one
H100 it measured 882 TOPS at 8192^3, 44.6 % of the INT8 sheet value. Here the same product is
asked of cuBLASLt the way its documentation describes: a ``WORKSPACE_BYTES`` workspace, the
heuristic's candidate algorithms for the problem (``cublasLtMatmulAlgoGetHeuristic``), each
timed briefly on the operands, the fastest kept (``Int8Matmul.tune``). The product is
checked against ``torch._int_mm`` once, exactly (int32 results), before it is timed.

Layout: torch's row-major C[M,N] = A[M,K] @ B[K,N] is, in cuBLASLt's column-major terms,
C^T[N,M] = B^T[N,K] @ A^T[K,M]. A row-major A is a column-major K x M matrix (ld K) and B
column-major (a view of a contiguous [N,K], base/'s INT8 operands) is a column-major K x N
matrix read transposed: the "TN" form of cuBLASLt's integer tensor-core (IMMA) kernels.

The library is the one torch has loaded (found in /proc/self/maps after a first
``torch._int_mm``), else the first libcublasLt.so beside torch or in the nvidia-* wheels.
Enumerations and structures follow cublasLt.h (CUDA 12/13).
"""

from __future__ import annotations

import ctypes
import glob
import os
from dataclasses import dataclass, field

import torch

CUBLAS_COMPUTE_32I = 72
CUDA_R_8I, CUDA_R_32I = 3, 10
MATMUL_DESC_TRANSA, MATMUL_DESC_TRANSB = 3, 4
OP_N, OP_T = 0, 1
PREF_MAX_WORKSPACE_BYTES = 1
# cuBLAS asks for 32 MiB on Hopper (CUDA 12 release notes; PyTorch's CUBLASLT_WORKSPACE_SIZE
# discussion, pytorch/pytorch#101145, measured that much in use on an H100)
WORKSPACE_BYTES = 32 << 20
CANDIDATES = 8          # heuristic results asked for, each timed
ALPHA, BETA = ctypes.c_int32(1), ctypes.c_int32(0)      # D = 1 * A B + 0 * C (host scalars)
TUNE_ITERS = 5          # timed calls per candidate (after one untimed)


class Algo(ctypes.Structure):
    _fields_ = [("data", ctypes.c_uint64 * 8)]


class Heuristic(ctypes.Structure):
    """cublasLtMatmulHeuristicResult_t."""

    _fields_ = [("algo", Algo), ("workspace_size", ctypes.c_size_t), ("state", ctypes.c_int),
                ("waves_count", ctypes.c_float), ("reserved", ctypes.c_int * 4)]


class CublasLtError(RuntimeError):
    """A cuBLASLt call returned a status other than CUBLAS_STATUS_SUCCESS."""


def library_path() -> str:
    """The libcublasLt this process uses: the one torch loaded, else one beside torch."""
    torch._int_mm(torch.ones(32, 32, dtype=torch.int8, device="cuda"),
                  torch.ones(32, 32, dtype=torch.int8, device="cuda").t())   # loads cuBLASLt
    try:
        with open("/proc/self/maps", encoding="utf-8", errors="replace") as maps:
            for line in maps:
                path = line.split()[-1] if line.strip() else ""
                if "libcublasLt.so" in os.path.basename(path):
                    return path
    except OSError:
        pass
    torch_dir = os.path.dirname(torch.__file__)
    site = os.path.dirname(torch_dir)
    for pattern in (f"{torch_dir}/lib/libcublasLt.so*", f"{site}/nvidia/*/lib/libcublasLt.so*"):
        found = sorted(glob.glob(pattern))
        if found:
            return found[0]
    raise CublasLtError("no libcublasLt.so is loaded by torch or found beside it")


_LIB: ctypes.CDLL | None = None
_HANDLE = ctypes.c_void_p()
P = ctypes.c_void_p


def lib() -> ctypes.CDLL:
    """cuBLASLt with the argument types of the calls made here, and one handle, made once."""
    global _LIB
    if _LIB is None:
        cdll = ctypes.CDLL(library_path())
        signatures = {
            "cublasLtCreate": [ctypes.POINTER(P)],
            "cublasLtMatmulDescCreate": [ctypes.POINTER(P), ctypes.c_int, ctypes.c_int],
            "cublasLtMatmulDescSetAttribute": [P, ctypes.c_int, P, ctypes.c_size_t],
            "cublasLtMatrixLayoutCreate": [ctypes.POINTER(P), ctypes.c_int, ctypes.c_uint64,
                                           ctypes.c_uint64, ctypes.c_int64],
            "cublasLtMatmulPreferenceCreate": [ctypes.POINTER(P)],
            "cublasLtMatmulPreferenceSetAttribute": [P, ctypes.c_int, P, ctypes.c_size_t],
            "cublasLtMatmulAlgoGetHeuristic": [P, P, P, P, P, P, P, ctypes.c_int,
                                               ctypes.POINTER(Heuristic),
                                               ctypes.POINTER(ctypes.c_int)],
            "cublasLtMatmul": [P, P, P, P, P, P, P, P, P, P, P, P, ctypes.POINTER(Algo), P,
                               ctypes.c_size_t, P],
        }
        for name, argtypes in signatures.items():
            function = getattr(cdll, name)
            function.argtypes, function.restype = argtypes, ctypes.c_int
        check(cdll.cublasLtCreate(ctypes.byref(_HANDLE)), "cublasLtCreate")
        _LIB = cdll
    return _LIB


def check(status: int, call: str) -> None:
    if status != 0:
        raise CublasLtError(f"{call} returned cuBLAS status {status}")


def tn_layouts(m: int, n: int, k: int) -> dict[str, tuple[int, int, int]]:
    """cuBLASLt's (rows, cols, ld) of each operand as stored, for torch's C[M,N] = A[M,K] @
    B[K,N] with A row-major and B column-major: cuBLASLt's A is torch's B (K x N, read
    transposed), its B is torch's A (K x M), its D is C^T (N x M)."""
    return {"a": (k, n, k), "b": (k, m, k), "d": (n, m, n)}


@dataclass
class Int8Matmul:
    """C = A @ B in int8 x int8 -> int32 for fixed operands, through cublasLtMatmul; call it."""

    a: torch.Tensor                  # [M, K] int8, row-major
    b: torch.Tensor                  # [K, N] int8, column-major
    out: torch.Tensor = field(init=False)                # [M, N] int32, written by each call
    workspace: torch.Tensor = field(init=False)
    desc: P = field(init=False)                          # the cublasLtMatmulDesc_t
    layouts: dict[str, P] = field(init=False)            # tn_layouts' keys -> cublasLtMatrixLayout_t
    algos: list[Algo] = field(init=False, default_factory=list)
    chosen: int = field(init=False, default=0)           # index into algos (tune)
    times: list[float] = field(init=False, default_factory=list)   # ms per call, per algo

    def __post_init__(self) -> None:
        if self.a.device.type != "cuda" or torch.version.hip:
            raise CublasLtError(f"int8_kernel cublaslt calls NVIDIA's cuBLASLt: the operands are on "
                                f"{self.a.device}{' (ROCm)' if torch.version.hip else ''}")
        if not (self.a.is_contiguous() and self.b.t().is_contiguous()):
            raise CublasLtError("cuBLASLt's TN INT8 GEMM takes A row-major and B column-major")
        (m, k), n = self.a.shape, self.b.shape[1]
        cublas = lib()
        self.out = torch.empty(m, n, dtype=torch.int32, device=self.a.device)
        self.workspace = torch.empty(WORKSPACE_BYTES, dtype=torch.uint8, device=self.a.device)
        self.desc = P()
        check(cublas.cublasLtMatmulDescCreate(ctypes.byref(self.desc), CUBLAS_COMPUTE_32I,
                                              CUDA_R_32I), "cublasLtMatmulDescCreate")
        for attribute, value in ((MATMUL_DESC_TRANSA, OP_T), (MATMUL_DESC_TRANSB, OP_N)):
            op = ctypes.c_int32(value)
            check(cublas.cublasLtMatmulDescSetAttribute(self.desc, attribute, ctypes.byref(op),
                                                        ctypes.sizeof(op)),
                  "cublasLtMatmulDescSetAttribute")
        self.layouts = {}
        for operand, (rows, cols, ld) in tn_layouts(m, n, k).items():
            layout = P()
            check(cublas.cublasLtMatrixLayoutCreate(ctypes.byref(layout),
                                                    CUDA_R_32I if operand == "d" else CUDA_R_8I,
                                                    rows, cols, ld), "cublasLtMatrixLayoutCreate")
            self.layouts[operand] = layout
        self.algos = self.heuristics(cublas)

    def heuristics(self, cublas: ctypes.CDLL) -> list[Algo]:
        pref = P()
        check(cublas.cublasLtMatmulPreferenceCreate(ctypes.byref(pref)),
              "cublasLtMatmulPreferenceCreate")
        size = ctypes.c_uint64(WORKSPACE_BYTES)
        check(cublas.cublasLtMatmulPreferenceSetAttribute(pref, PREF_MAX_WORKSPACE_BYTES,
                                                          ctypes.byref(size), ctypes.sizeof(size)),
              "cublasLtMatmulPreferenceSetAttribute")
        results, count = (Heuristic * CANDIDATES)(), ctypes.c_int(0)
        lay = self.layouts
        check(cublas.cublasLtMatmulAlgoGetHeuristic(_HANDLE, self.desc, lay["a"], lay["b"],
                                                    lay["d"], lay["d"], pref, CANDIDATES,
                                                    results, ctypes.byref(count)),
              "cublasLtMatmulAlgoGetHeuristic")
        algos = [results[i].algo for i in range(count.value) if results[i].state == 0]
        if not algos:
            raise CublasLtError("cuBLASLt's heuristic offers no INT8 algorithm for "
                                f"{tuple(self.a.shape)} x {tuple(self.b.shape)}")
        return algos

    def __call__(self) -> torch.Tensor:
        return self.run(self.chosen)

    def run(self, index: int) -> torch.Tensor:
        lay, out = self.layouts, self.out.data_ptr()
        stream = torch.cuda.current_stream(self.a.device).cuda_stream
        check(lib().cublasLtMatmul(_HANDLE, self.desc, ctypes.byref(ALPHA),
                                   self.b.data_ptr(), lay["a"], self.a.data_ptr(), lay["b"],
                                   ctypes.byref(BETA), out, lay["d"], out, lay["d"],
                                   ctypes.byref(self.algos[index]), self.workspace.data_ptr(),
                                   WORKSPACE_BYTES, stream), "cublasLtMatmul")
        return self.out

    def tune(self) -> None:
        """Time each candidate (TUNE_ITERS calls after one; ``times``, ms), keep the fastest."""
        times = []
        for index in range(len(self.algos)):
            self.run(index)
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            for _ in range(TUNE_ITERS):
                self.run(index)
            end.record()
            end.synchronize()
            times.append(start.elapsed_time(end) / TUNE_ITERS)
        self.chosen = min(range(len(times)), key=times.__getitem__)
        self.times = times

    def describe(self) -> dict:
        """For FINISHED's method: the candidates timed, their ms per call, the one kept."""
        return {"candidates": len(self.algos), "chosen": self.chosen,
                "candidate_ms": [round(t, 4) for t in self.times],
                "workspace_bytes": WORKSPACE_BYTES}

    def verify(self) -> None:
        """The chosen algorithm's product equals torch._int_mm's (exact: int32 sums)."""
        if not torch.equal(self(), torch._int_mm(self.a, self.b)):
            raise CublasLtError("cublasLtMatmul's INT8 product differs from torch._int_mm's on "
                                "the same operands")


def int8_matmul(a: torch.Tensor, b: torch.Tensor) -> Int8Matmul:
    """The tuned, verified cuBLASLt INT8 GEMM of ``a @ b``."""
    gemm = Int8Matmul(a, b)
    gemm.tune()
    gemm.verify()
    return gemm
