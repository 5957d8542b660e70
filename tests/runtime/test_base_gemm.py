"""base/'s GEMM methods: INT8 through torch._int_mm with the operand layout and sizes its
integer tensor-core kernels take, and the kernel each device reaches, named in the result."""

from __future__ import annotations

import ctypes
from types import SimpleNamespace

import pytest
import torch

from chipperf_runtime.base import gemm
from chipperf_runtime.device.torch import TorchDevice, open_torch_device


def test_int8_gemm_is_int_mm_on_a_column_major_b_and_exact_on_the_cpu() -> None:
    a, b = gemm.int8_operands(32, 24, 64, torch.device("cpu"))
    assert a.dtype == b.dtype == torch.int8 and a.is_contiguous()
    assert b.shape == (64, 24) and b.stride() == (1, 64)          # B column-major
    product = gemm.operands("INT8", 32, 24, 64, torch.device("cpu"))()
    assert product.dtype == torch.int32 and product.shape == (32, 24)
    assert torch.equal(torch._int_mm(a, b), a.int() @ b.int())   # int32 accumulation, exact


def test_the_result_names_the_int8_kernel_this_device_reached(monkeypatch) -> None:
    monkeypatch.setenv("CHIPPERF_DEVICE", "cpu")
    cpu = open_torch_device(0)
    named = gemm.kernel("INT8", cpu)
    assert named.startswith("torch._int_mm, int8 x int8 -> int32, B column-major: ")
    if torch.backends.mkldnn.is_available() and torch.backends.mkldnn.enabled:
        assert "oneDNN s8 x s8 -> s32" in named and "no integer tensor cores" in named
    assert gemm.kernel("FP32", cpu) == "torch.matmul, torch.float32"


@pytest.mark.parametrize("kind, hip, expected", [
    ("cuda", None, "cuBLASLt int8 GEMM on the integer tensor cores (IMMA)"),
    ("cuda", "6.4", "hipBLASLt int8 GEMM (ROCm)"),
    ("npu", None, "the npu plug-in's torch._int_mm kernel"),
])
def test_the_int8_path_is_chosen_by_device(monkeypatch, kind: str, hip: str | None,
                                           expected: str) -> None:
    monkeypatch.setattr(torch.version, "hip", hip)
    assert TorchDevice.int_mm_path(SimpleNamespace(type=kind)) == expected  # type: ignore[arg-type]


@pytest.mark.parametrize("m, n, k, problems", [
    (8192, 8192, 8192, []),
    (17, 8, 8, []),
    (16, 8, 8, ["M=16 must be above 16"]),
    (32, 12, 20, ["K=20 must be a positive multiple of 8",
                  "N=12 must be a positive multiple of 8"]),
])
def test_int8_sizes_follow_int_mm_s_rule(m: int, n: int, k: int, problems: list[str]) -> None:
    assert gemm.int8_size_problems(m, n, k) == problems


def _case(monkeypatch, **env: str):  # noqa: ANN202
    from argparse import Namespace

    from chipperf_runtime.bench.case import BenchCase

    monkeypatch.setenv("CHIPPERF_DEVICE", "cpu")
    args = Namespace(extern_config_dir="", extern_config_file="", chip="xeon")
    return BenchCase("base", "computation-FP32", args, environ={"CHIPPERF_DEVICE": "cpu", **env})


def test_on_the_cpu_local_rank_0_measures_with_every_core_and_the_others_sit_out(
        monkeypatch, capsys) -> None:
    from chipperf_runtime.device import usable_cores

    second = _case(monkeypatch, RANK="1", LOCAL_RANK="1", WORLD_SIZE="4", LOCAL_WORLD_SIZE="2")
    assert gemm.measure(second) is None and capsys.readouterr().out == ""
    first = _case(monkeypatch, RANK="0", LOCAL_RANK="0", WORLD_SIZE="4", LOCAL_WORLD_SIZE="2")
    cpu = open_torch_device(0)
    before = torch.get_num_threads()
    try:
        assert gemm.use_cores(first, cpu) == usable_cores() == torch.get_num_threads()
        first.settings["threads"] = 1
        assert gemm.use_cores(first, cpu) == 1 == torch.get_num_threads()
    finally:
        torch.set_num_threads(before)
    assert gemm.measuring(first, cpu) == 2                   # one per host: 4 ranks, 2 a host
    assert gemm.measuring(first, SimpleNamespace(is_accelerator=True)) == 4  # type: ignore[arg-type]


def test_numpy_is_the_reference_only_where_it_has_a_blas_gemm() -> None:
    from chipperf_runtime.base import blas

    assert blas.why_none("FP32") is None and blas.why_none("FP64") is None
    assert blas.why_none("BF16") == ("numpy has no BLAS GEMM in BF16 (only FP32, FP64): no "
                                     "numpy figure beside it")


def test_the_inductor_int8_kernel_computes_the_same_product() -> None:
    """``int8_kernel: inductor`` compiles the same torch._int_mm (max-autotune): the product
    stays exact; on the CPU Inductor has no GEMM template to try, so it keeps the library's."""
    torch.manual_seed(0)
    plain = gemm.operands("INT8", 32, 24, 64, torch.device("cpu"))()
    torch.manual_seed(0)
    tuned = gemm.operands("INT8", 32, 24, 64, torch.device("cpu"), "inductor")()
    assert torch.equal(plain, tuned)
    case = SimpleNamespace(name="computation-INT8", setting=lambda key, default, kind=int: "cutlass")
    with pytest.raises(gemm.BenchError,
                       match="int8_kernel 'cutlass' is not one of int_mm, cublaslt, inductor"):
        gemm.int8_kernel_of(case, "INT8")


def test_the_cublaslt_kernel_maps_torch_row_major_onto_cublaslt_tn_layouts() -> None:
    """cuBLASLt is column-major: C[M,N] = A[M,K] @ B[K,N] is asked as C^T = B^T A^T, its A
    torch's B stored K x N (read transposed), its B torch's A stored K x M, its D N x M; the
    heuristic result is the 96-byte cublasLtMatmulHeuristicResult_t of cublasLt.h."""
    from chipperf_runtime.base.nvidia import cublaslt

    assert cublaslt.tn_layouts(4096, 1024, 512) == {"a": (512, 1024, 512), "b": (512, 4096, 512),
                                                     "d": (1024, 4096, 1024)}
    assert ctypes.sizeof(cublaslt.Algo) == 64 and ctypes.sizeof(cublaslt.Heuristic) == 96


def test_the_cublaslt_kernel_off_an_nvidia_gpu_is_a_clear_case_error() -> None:
    with pytest.raises(gemm.BenchError, match="int8_kernel cublaslt: int8_kernel cublaslt calls "
                       "NVIDIA's cuBLASLt: the operands are on cpu: set int8_kernel: int_mm"):
        gemm.operands("INT8", 32, 24, 64, torch.device("cpu"), "cublaslt")
    device = SimpleNamespace(int_mm_path=lambda: "unused")
    assert gemm.kernel("INT8", device, "cublaslt").startswith(
        "cublasLtMatmul called directly, int8 x int8 -> int32, B column-major (TN), 32 MiB")
