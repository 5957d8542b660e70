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
