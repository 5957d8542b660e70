"""NVIDIA spec sheets: one per board, tensor-core and vector peaks apart, dense figures,
INT8 and FP8 where NVIDIA publishes them, a source on every sheet, missing said why."""

from __future__ import annotations

import pytest

from chipperf.results.compute.perf import chip_peak
from chipperf_runtime.bench.peaks import Peak, flops_peak, memory_bandwidth_peak, share
from chipperf_runtime.vendors import get_vendor

T = 1e12
NVIDIA = get_vendor("nvidia")


def test_a_bare_name_is_the_sxm_board() -> None:
    for bare in ("A100", "H100", "H200"):
        assert NVIDIA.chip(bare) is NVIDIA.chip(f"{bare}_SXM")
    assert NVIDIA.chip("h100_pcie") is NVIDIA.chips["H100_PCIe"]   # case does not matter


@pytest.mark.parametrize("chip,fp64_tc,fp64,fp32,bf16,fp8,int8,bandwidth", [
    ("H100_SXM", 67, 34, 67, 989.5, 1979, 1979, 3.35e12),
    ("H100_PCIe", 51, 26, 51, 756.5, 1513, 1513, 2.0e12),
    ("H100_NVL", 60, 30, 60, 835.5, 1670.5, 1670.5, 3.9e12),
    ("H200_SXM", 67, 34, 67, 989.5, 1979, 1979, 4.8e12),
    ("H200_NVL", 60, 30, 60, 835.5, 1670.5, 1670.5, 4.8e12),
])
def test_hopper_sheets_keep_tensor_core_and_vector_apart(chip, fp64_tc, fp64, fp32, bf16, fp8,
                                                         int8, bandwidth) -> None:
    spec = NVIDIA.chips[chip]
    assert spec.peak_flops["fp64"] == pytest.approx(fp64_tc * T)     # what DGEMM runs on
    assert spec.vector_flops["fp64"] == pytest.approx(fp64 * T)
    assert spec.peak_flops["fp32"] == spec.vector_flops["fp32"] == pytest.approx(fp32 * T)
    assert spec.peak_flops["bf16"] == spec.peak_flops["fp16"] == pytest.approx(bf16 * T)
    assert spec.peak_flops["fp8"] == pytest.approx(fp8 * T)
    assert spec.peak_flops["int8"] == pytest.approx(int8 * T)
    assert spec.memory_bandwidth == pytest.approx(bandwidth)
    assert "https://" in spec.source and "dense" in spec.source


def test_a100_boards_share_compute_and_lack_fp8_with_the_reason() -> None:
    boards = [NVIDIA.chips[n] for n in ("A100_SXM", "A100_PCIe", "A100_40_SXM", "A100_40_PCIe")]
    assert all(b.peak_flops == boards[0].peak_flops for b in boards)
    assert boards[0].peak_flops["fp64"] == pytest.approx(19.5 * T)
    assert boards[0].vector_flops["fp64"] == pytest.approx(9.7 * T)
    assert boards[0].peak_flops["int8"] == pytest.approx(624 * T)
    assert [b.memory_bandwidth for b in boards] == [2039e9, 1935e9, 1555e9, 1555e9]
    why = flops_peak("nvidia", "A100", "FP8")
    assert isinstance(why, str) and "Ampere tensor cores have no FP8" in why
    value, reason = chip_peak("nvidia", "A100_PCIe", "fp8")
    assert value is None and "Ampere tensor cores have no FP8" in reason


def test_the_base_fp64_and_int8_gemms_compare_against_the_tensor_core_peaks() -> None:
    # H100 measured this week: FP64 GEMM 54.6 TFLOP/s, INT8 132.6 TOPS (issue 26)
    fp64 = flops_peak("nvidia", "H100", "fp64")
    assert isinstance(fp64, Peak) and fp64.value == pytest.approx(67 * T)
    assert share(54.6 * T, fp64)["share_of_peak"] == pytest.approx(54.6 / 67)
    int8 = flops_peak("nvidia", "H100", "int8")
    assert isinstance(int8, Peak) and share(132.6 * T, int8)["share_of_peak"] < 0.1
    assert isinstance(memory_bandwidth_peak("nvidia", "H100_NVL"), Peak)


def test_flagperf_chip_names_find_their_own_board() -> None:
    spec = NVIDIA.chip("A100_40_SXM")
    assert spec is not None and spec.memory_bytes == 40 * 2**30
