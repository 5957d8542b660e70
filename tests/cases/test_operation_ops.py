"""operation/ benchmarks run for real on this host's CPU: every operator, correct and timed."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from benchrun import REPO, finished, run
from caserun import assert_case_error

from chipperf_runtime.perflog import finished_problems

sys.path.insert(0, str(REPO / "operation" / "benchmarks"))
from chipperf_runtime.operation.flagperf_ops import FLAGPERF_OPS  # noqa: E402
from chipperf_runtime.operation.table import OPS  # noqa: E402

# One process per operator costs ~3 s here (importing torch); FlagPerf's 32 other operators
# (flagperf_ops.py) are checked in one process (test_operation_flagperf_ops.py) and run as
# programs in FLAGPERF_SAMPLE only.
SUBPROCESS_OPS = sorted(set(OPS) - set(FLAGPERF_OPS))
FLAGPERF_SAMPLE = [("bitwise_and", "INT32"), ("native_group_norm", "BF16")]


def _checked(value: dict, op: str, dtype: str) -> None:
    assert finished_problems(value) == []
    assert value["operator"] == op and value["dtype"] == dtype.lower()
    assert value["converged"] is True and value["correctness"]["passed"] is True
    latency = value["latency_ms"]
    assert 0 < latency["min"] <= latency["p50"] <= latency["p90"] <= latency["p99"] \
        <= latency["max"] and latency["count"] >= 10
    assert len(value["shapes"]) == len(value["correctness"]["shapes"]) >= 2
    assert value["value"] > 0 and value["unit"] == ("TFLOP/s" if OPS[op].flops else "GB/s")
    print(op, dtype, f"{value['value']:.4g} {value['unit']} p50 {latency['p50']:.3f} ms")


def test_at_least_25_operators() -> None:
    assert len(OPS) >= 25
    for op in OPS:
        assert (REPO / "operation" / "benchmarks" / op / "pytorch" / "main.py").is_file()


@pytest.mark.parametrize("op", SUBPROCESS_OPS)
def test_operator_fp32(op: str) -> None:
    result = run("operation", op, "--dtype", "FP32", "--spec_tflops", "1")
    assert result.returncode == 0, result.stderr[-2000:]
    value = finished(result.stdout)
    _checked(value, op, "FP32")
    if OPS[op].flops:   # share of the key's spec peak, 1 TFLOP/s here
        assert value["share_of_peak"] == pytest.approx(value["value"])


@pytest.mark.parametrize("op,dtype", [("mm", "BF16"), ("softmax", "FP16"), ("cumsum", "BF16"),
                                      ("layer_norm", "BF16"), ("argmax", "FP16"),
                                      ("sum", "FP64")])
def test_operator_low_and_high_precision(op: str, dtype: str) -> None:
    result = run("operation", op, "--dtype", dtype)
    assert result.returncode == 0, result.stderr[-2000:]
    _checked(finished(result.stdout), op, dtype)


@pytest.mark.parametrize("op,dtype", FLAGPERF_SAMPLE)
def test_flagperf_operator_programs(op: str, dtype: str) -> None:
    result = run("operation", op, "--dtype", dtype)
    assert result.returncode == 0, result.stderr[-2000:]
    _checked(finished(result.stdout), op, dtype)


def test_integer_only_operator_refuses_a_float_dtype() -> None:
    assert_case_error(run("operation", "bitwise_not", "--dtype", "FP32"),
                      "bitwise_not: dtype FP32 is not one it takes: use one of INT32, INT16")


def test_flaggems_without_flag_gems_is_skipped_with_its_reason() -> None:
    pytest.importorskip("torch")
    try:
        import flag_gems  # noqa: F401
        pytest.skip("flag_gems is installed here")
    except ImportError:
        pass
    result = run("operation", "mm", "--provider", "flaggems")
    assert result.returncode == 3
    assert "unsupported: provider flaggems: flag_gems does not import" in result.stderr


def test_bad_inputs(tmp_path: Path) -> None:
    assert_case_error(run("operation", "mm", "--dtype", "INT4"), "dtype 'INT4' is not one of")
    assert_case_error(run("operation", "mm", "--provider", "cublas"), "provider 'cublas'")
    config = tmp_path / "cpu_configuration.yaml"
    config.write_text("mm:\n  shapes: [[1, 2]]\n")
    result = run("operation", "mm", "--extern_config_dir", str(tmp_path))
    assert_case_error(result, "shapes [[1, 2]]", "M,K,N")
