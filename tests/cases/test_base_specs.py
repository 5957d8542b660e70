"""base/ specs measured for real on this host's CPU (cpu vendor), through their programs."""

from __future__ import annotations

import pytest
from benchrun import REPO, finished, run, run_ranks
from caserun import assert_case_error

from chipperf_runtime.perflog import finished_problems, parse_lines

CPU_GEMMS = ["FP64", "FP32", "FP16", "BF16", "INT8", "FP8"]


def _measured(value: dict, unit: str) -> None:
    assert finished_problems(value) == []
    assert value["unit"] == unit and value["value"] > 0 and value["converged"] is True
    assert value["train_time_s"] > 0 and value["work_done"] > 0
    assert value["method"]["iterations"] >= value["method"]["min_iters"]
    print(value["spec"], f"{value['value']:.4g} {unit}", value.get("share_reason", ""))


@pytest.mark.parametrize("dtype", CPU_GEMMS)
def test_gemm_per_dtype(dtype: str) -> None:
    result = run("base", f"computation-{dtype}", "--chip", "xeon")
    assert result.returncode == 0, result.stderr[-2000:]
    value = finished(result.stdout)
    _measured(value, "TFLOP/s")
    # flops counted = 2*M*N*K per GEMM, and the figure is that over the timed window
    m = value["method"]
    assert value["work_done"] == 2 * m["M"] * m["N"] * m["K"] * m["iterations"]
    # the call, and for INT8 the CPU path torch._int_mm took (tests/runtime/test_base_gemm.py)
    assert m["kernel"].startswith("torch._int_mm" if dtype == "INT8" else "torch.")
    assert dtype != "INT8" or m["kernel"].endswith("on the CPU (no integer tensor cores)")
    assert value["value"] == pytest.approx(value["work_done"] / value["train_time_s"] / 1e12)
    # the cpu vendor's sheets have no peak: the share is absent with the reason, not 0
    assert value["share_of_peak"] is None and "no " in value["share_reason"]
    _beside(value, "TFLOP/s")
    _numpy_beside(value, dtype)


def _numpy_beside(value: dict, dtype: str) -> None:
    """The cpu GEMM on every usable core, numpy's GEMM (OpenBLAS) on as many timed after it."""
    from chipperf_runtime.device import usable_cores

    assert value["method"]["threads"] == usable_cores()
    if dtype not in ("FP32", "FP64"):
        assert value["numpy_reference_reason"].startswith(f"numpy has no BLAS GEMM in {dtype}")
        return
    numpy_ref = value["numpy_reference"]
    assert numpy_ref["threads"] == usable_cores() and numpy_ref["value"] > 0
    assert "numpy.matmul" in numpy_ref["method"] and numpy_ref["blas"]
    assert value["ratio_to_numpy"] == pytest.approx(value["value"] / numpy_ref["value"])


def _beside(value: dict, unit: str) -> None:
    """The bare torch loop timed after the window (chipperf_runtime.base.reference.beside)."""
    bare = value["reference"]
    assert bare["unit"] in (unit, "TOPS") and bare["value"] > 0 and "bare loop" in bare["method"]


def test_tf32_is_unsupported_on_the_cpu_with_its_reason() -> None:
    result = run("base", "computation-TF32")
    assert result.returncode == 3, result.stderr[-2000:]
    assert "chipperf case error: unsupported: TF32 on cpu" in result.stderr
    events, problems = parse_lines(result.stdout.splitlines())
    value = events[-1].value
    assert problems == [] and events[-1].name == "FINISHED"
    assert value["unsupported"].startswith("TF32 on cpu") and "value" not in value


def test_h2d_is_unsupported_on_the_cpu() -> None:
    result = run("base", "interconnect-h2d")
    assert result.returncode == 3 and "no host-to-device link" in result.stderr


def test_memory_bandwidth_and_capacity() -> None:
    bandwidth = run("base", "main_memory-bandwidth")
    assert bandwidth.returncode == 0, bandwidth.stderr[-2000:]
    _measured(finished(bandwidth.stdout), "GB/s")
    _beside(finished(bandwidth.stdout), "GB/s")
    capacity = run("base", "main_memory-capacity")
    assert capacity.returncode == 0, capacity.stderr[-2000:]
    value = finished(capacity.stdout)
    _measured({**value, "method": {"iterations": 1, "min_iters": 1}}, "GiB")
    assert value["work_done"] <= value["method"]["physical_bytes"]


@pytest.mark.parametrize("spec,nproc,nnodes,factor", [
    ("interconnect-P2P_intraserver", 2, 1, 1.0),
    ("interconnect-MPI_intraserver", 2, 1, 1.0),        # 2(n-1)/n at n=2
    ("interconnect-MPI_intraserver", 3, 1, 4 / 3),
    ("interconnect-P2P_interserver", 1, 2, 1.0),
    ("interconnect-MPI_interserver", 1, 2, 1.0),
])
def test_links_use_nccl_tests_bandwidths(spec: str, nproc: int, nnodes: int,
                                         factor: float) -> None:
    value = finished(run_ranks(spec, nproc, nnodes)[0])
    _measured(value, "GB/s")
    assert value["world_size"] == nproc * nnodes
    assert value["busbw_gbs"] == pytest.approx(value["algbw_gbs"] * factor)
    m = value["method"]
    assert value["algbw_gbs"] == pytest.approx(
        m["bytes"] * m["iterations"] / value["train_time_s"] / 1e9, rel=0.05)


def test_bad_inputs_are_one_clear_message() -> None:
    one_node = run("base", "interconnect-MPI_interserver")
    assert_case_error(one_node, "measures between servers", "list at least 2 hosts")
    alone = run("base", "interconnect-MPI_intraserver")
    assert_case_error(alone, "needs at least 2 ranks")


def test_a_measured_gemm_peak_gives_mfu_where_the_spec_sheet_has_none(tmp_path) -> None:
    """A base/ run's computation-FP32 result (measured here, for real) divides a cpu training
    run's achieved FLOP/s: mfu_measured exists although the cpu spec sheet has no peak."""
    import json

    from synthetic_results import SynthCase, write_run

    from chipperf.results.read.collect import collect

    result = run("base", "computation-FP32")
    assert result.returncode == 0, result.stderr[-2000:]
    measured_tflops = finished(result.stdout)["value"]
    base = tmp_path / "base-run"
    node = base / "computation-FP32-pytorch_2.13-xeon-1x1" / "round1" / "h1_noderank0"
    node.mkdir(parents=True)
    (node / "rank0.out.log").write_text(result.stdout)
    (base / "run.json").write_text(json.dumps({
        "suite": "base", "test": {"vendor": "cpu"},
        "cases": {"computation-FP32-pytorch_2.13-xeon-1x1": {"chip": "xeon"}}}))

    # 1,000 samples/s x 1 MFLOP over 2 ranks: 0.5 GFLOP/s per chip, below any CPU's GEMM peak
    # (a share above 100 % would be rejected as an error: chipperf.results.compute.plausible)
    case = SynthCase(vendor="cpu", chip="xeon", dtype="fp32", nnodes=1, nproc=2,
                     flops_per_unit=1e6)
    training = write_run(tmp_path / "training", [case])
    (collected_case,) = collect(training, base).summary.cases
    for r in collected_case.rounds:
        assert r.mfu is None and "no peak FLOP/s" in r.reasons["mfu"]
        achieved = r.window_work * r.flops_per_unit / r.train_time_s
        assert r.measured_peak_flops_per_chip == pytest.approx(measured_tflops * 1e12)
        assert r.mfu_measured == pytest.approx(achieved / (measured_tflops * 1e12 * r.chips))
        assert r.measured_peak_source == ("base-run/computation-FP32-pytorch_2.13-xeon-1x1/"
                                          "round1")
    other = SynthCase(vendor="cpu", chip="xeon", dtype="bf16", nnodes=1, nproc=2)
    (bf16,) = collect(write_run(tmp_path / "bf16", [other]), base).summary.cases
    assert bf16.rounds[0].mfu_measured is None
    assert "has no computation-BF16 result for chip xeon (it has: xeon fp32)" in \
        bf16.rounds[0].reasons["mfu_measured"]


@pytest.mark.parametrize("spec, unit, work_unit", [("computation-FP32", "TFLOP/s", "FLOP"),
                                                   ("main_memory-bandwidth", "GB/s", "bytes")])
def test_the_cpu_toolkits_build_run_and_report(tmp_path, spec: str, unit: str,
                                               work_unit: str) -> None:
    """The cpu vendor's toolkit (C with OpenMP, base/toolkits/<spec>/cpu/) built with this
    host's compiler and run by the spec's entry: FINISHED in the benchmark's unit, its
    method named, the toolkit's output kept in toolkit.log.txt."""
    result = run("base", spec, "--output_dir", str(tmp_path), "--toolkit_dir",
                 str(REPO / "base" / "toolkits" / spec / "cpu"))
    assert result.returncode == 0, result.stderr[-2000:]
    value = finished(result.stdout)
    assert finished_problems(value) == []
    assert (value["unit"], value["work_unit"], value["measured_by"]) == (unit, work_unit, "toolkit")
    assert value["value"] == pytest.approx(
        value["work_done"] / value["train_time_s"] / (1e12 if unit == "TFLOP/s" else 1e9), rel=1e-3)
    assert value["method"]["timing"].startswith("the toolkit's own timed window")
    assert value["method"]["printed"] in (tmp_path / "toolkit.log.txt").read_text()
    events, _ = parse_lines(result.stdout.splitlines())
    assert [e.value for e in events if e.name == "SUBMIT_INFO"][0]["method"] == "toolkit"


@pytest.mark.parametrize("script, phrases", [
    ("echo compiling; exit 3", ["exited with status 3", "its last lines: compiling"]),
    ("echo '[FlagPerf Result]computation-FP32=fast'",
     ["printed no result: no line '[FlagPerf Result]computation-FP32=<number><unit>'"]),
    (None, ["main.sh does not exist"]),
])
def test_a_broken_toolkit_is_one_message_naming_vendor_spec_and_file(
        tmp_path, script: str | None, phrases: list[str]) -> None:
    folder = tmp_path / "toolkits" / "computation-FP32" / "cpu"
    folder.mkdir(parents=True)
    if script is not None:
        (folder / "main.sh").write_text(script + "\n")
    result = run("base", "computation-FP32", "--output_dir", str(tmp_path), "--toolkit_dir",
                 str(folder))
    assert result.returncode == 2 and "Traceback" not in result.stderr, result.stderr[-2000:]
    (error,) = [line for line in result.stderr.splitlines() if "chipperf case error" in line]
    for phrase in ["toolkit of vendor 'cpu' for computation-FP32", str(folder / "main.sh"), *phrases]:
        assert phrase in error, error
    # no figure and no timed window: the round fails with this message
    assert "FINISHED" not in result.stdout and "TRAIN_END" not in result.stdout
