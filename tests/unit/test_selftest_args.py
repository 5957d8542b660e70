"""`chipperf selftest`'s bad input, refused before anything runs, and its verdict table (pure)."""

from __future__ import annotations

from pathlib import Path

import pytest

from chipperf.commands.selftest import FACTS_MIN_S, check_args, gemm_dtypes
from chipperf.commands.selftest_engine import Selftest, case_rows, quality_missed
from chipperf.commands.selftest_verdict import Row, table
from chipperf.errors import ConfigError


@pytest.mark.parametrize("vendor, chip, budget, says", [
    ("cpu", "xeon", 5, f"--budget 5: too small for one step (the device facts take up to "
                       f"{FACTS_MIN_S:g} s, the shortest step about 40 s): give at least 60"),
    ("acme", "x", 600, "--vendor acme: no such vendor; one of "),
    ("nvidia", "Z9", 600, "--chip Z9: not on the nvidia spec sheet; one of "),
])
def test_bad_input_is_one_message_before_anything_runs(vendor, chip, budget, says) -> None:
    with pytest.raises(ConfigError) as caught:
        check_args(vendor, chip, budget)
    assert says in str(caught.value)


def test_the_gemm_dtypes_are_the_chip_s_listed_ones() -> None:
    """The dtypes the chip's sheet has a peak for, in the sheet's order; the A100 has no FP8."""
    assert gemm_dtypes("cpu", "xeon") == ["FP32", "BF16"]          # no peaks on the cpu sheet
    assert gemm_dtypes("nvidia", "H100") == ["FP64", "FP32", "TF32", "BF16", "FP16", "FP8", "INT8"]
    assert gemm_dtypes("nvidia", "A100") == ["FP64", "FP32", "TF32", "BF16", "FP16", "INT8"]


def test_the_table_says_what_each_figure_is_and_why_one_is_missing() -> None:
    lines = table([Row("base", "computation-FP32", 0.5, "TFLOP/s", 0.55, 0.5 / 0.55, 0.01),
                   Row("serving", "serving", verdict="not run: 3 s of the budget left")])
    assert lines[0].split() == ["step", "figure", "value", "spread", "rounds", "reference",
                                "ratio", "of", "spec", "causal", "verdict"]
    assert "0.5 TFLOP/s" in lines[1] and "0.909" in lines[1] and "1.0 %" in lines[1]
    assert lines[2].endswith("not run: 3 s of the budget left")


def test_a_quality_miss_is_said_beside_figures_that_stand() -> None:
    served = {"status": "succeeded", "converged": False, "engine": "eager",
              "throughput": {"raw": 112.5, "pure_compute": 112.6, "unit": "tokens/s"},
              "metric": {"name": "greedy_token_agreement", "value": 0.0784, "target": 0.8}}
    test = Selftest("cpu", "xeon", 60.0, Path("."), Path("."), command=lambda argv: 0)
    case_rows(test, "serving", {"rounds": [served]}, "llama3_8b")
    whole, core = test.rows
    assert (whole.figure, whole.value, core.figure, core.value) == (
        "llama3_8b whole throughput, eager", 112.5, "llama3_8b core throughput, eager", 112.6)
    assert whole.verdict == ("ok, but greedy_token_agreement 0.0784 missed its target 0.8 "
                             "(agreement with the fp32 reference)")
    assert quality_missed("serving", {**served, "converged": True}) == ""
    assert quality_missed("training", served) == ""


@pytest.mark.parametrize("step", ["training", "inference", "serving"])
def test_a_steps_rounds_share_its_time(tmp_path, monkeypatch, step) -> None:
    """Each round's deadline is its part of the step's share (a plain install's selftest on a
    loaded host ran 2 training rounds of 281 s each in a 382 s share, and the budget with them)."""
    import yaml

    from chipperf.commands import selftest

    monkeypatch.setattr(selftest, "prepared", lambda test, step: tmp_path / "data")
    test = Selftest("cpu", "xeon", 600.0, tmp_path, tmp_path / "data", command=lambda argv: 2)
    test.share_s = 240.0
    selftest.STEPS[step](test, 3)
    written = tmp_path / step / ("test.yaml" if step == "training" else "host.yaml")
    config = yaml.safe_load(written.read_text())
    assert config["ROUND_TIMEOUT"] == 80
    assert next(iter(config["CASES"])).endswith(":1:1:3")
    assert test.rows[0].verdict.startswith("failed: chipperf run exited 2 and wrote no summary")
