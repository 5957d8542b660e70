"""base/'s GEMM methods: INT8 through torch._int_mm with the operand layout and sizes its
integer tensor-core kernels take, and the kernel each device reaches, named in the result."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
import torch

from chipperf_runtime.base import gemm
from chipperf_runtime.device.torch import open_torch_device


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
    assert gemm.int8_path(SimpleNamespace(type=kind)) == expected  # type: ignore[arg-type]


@pytest.mark.parametrize("m, n, k, problems", [
    (8192, 8192, 8192, []),
    (17, 8, 8, []),
    (16, 8, 8, ["M=16 must be above 16"]),
    (32, 12, 20, ["K=20 must be a positive multiple of 8",
                  "N=12 must be a positive multiple of 8"]),
])
def test_int8_sizes_follow_int_mm_s_rule(m: int, n: int, k: int, problems: list[str]) -> None:
    assert gemm.int8_size_problems(m, n, k) == problems
