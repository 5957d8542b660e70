"""MEASURED_PEAKS / --measured-peaks: what is not a base/ run with GEMM results is refused,
named (the measured case itself is in tests/cases/test_base_specs.py)."""

from __future__ import annotations

import json

from chipperf.results.compute.measured import read_measured_peaks


def test_not_a_base_run_is_named(tmp_path) -> None:
    peaks, problems = read_measured_peaks(tmp_path / "nowhere")
    assert peaks is None and "nowhere/run.json cannot be read" in problems[0]
    (tmp_path / "run.json").write_text(json.dumps({"suite": "training", "cases": {}}))
    peaks, problems = read_measured_peaks(tmp_path)
    assert peaks is None and problems == [f"measured peaks: {tmp_path} is a 'training' run, "
                                          "not a base/ run"]


def test_a_base_run_without_gemm_results_is_named(tmp_path) -> None:
    (tmp_path / "run.json").write_text(json.dumps({
        "suite": "base", "test": {"vendor": "cpu"},
        "cases": {"main_memory-bandwidth-pytorch_2.13-xeon-1x1": {"chip": "xeon"}}}))
    peaks, problems = read_measured_peaks(tmp_path)
    assert peaks is None and problems == [f"measured peaks: {tmp_path} has no "
                                          "computation-<DTYPE> result"]


def test_an_operation_run_gets_its_share_of_the_measured_peak(tmp_path) -> None:
    """Issue 12: an operator's achieved FLOP/s beside the base/ measured GEMM peak of the same
    chip and dtype (mfu_measured, "MFU vs measured peak" in the report)."""
    from synthetic_results import SynthCase, write_run

    from chipperf.results.read.collect import collect

    base = tmp_path / "base"
    node = base / "computation-FP32-pytorch_2.13-xeon-1x1" / "round1" / "h1_noderank0"
    node.mkdir(parents=True)
    finished = {"event": "FINISHED", "value": {"spec": "computation-FP32", "unit": "TFLOP/s",
                                               "value": 0.05}}
    (node / "rank0.out.log").write_text(f"[PerfLog] {json.dumps(finished)}\n")
    (base / "run.json").write_text(json.dumps({
        "suite": "base", "test": {"vendor": "cpu"},
        "cases": {"computation-FP32-pytorch_2.13-xeon-1x1": {"chip": "xeon"}}}))
    case = SynthCase(model="mm-FP32-nativetorch", vendor="cpu", chip="xeon", dtype="fp32",
                     nnodes=1, nproc=1, flops_per_unit=1.0)
    (collected,) = collect(write_run(tmp_path / "op", [case], suite="operation"), base).summary.cases
    for r in collected.rounds:
        achieved = r.window_work * r.flops_per_unit / r.train_time_s
        assert r.measured_peak_flops_per_chip == 0.05e12
        assert r.mfu_measured == achieved / 0.05e12
