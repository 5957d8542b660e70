"""`chipperf plan`'s run mode and input mode lines (chipperf.commands.render_plan)."""

from __future__ import annotations

import json
from pathlib import Path

from chipperf.commands.render_plan import input_mode_text, run_mode_text


def test_performance_says_its_warm_up_and_timed_steps() -> None:
    text = run_mode_text({"run_mode": "performance", "perf_warmup_steps": 10, "timed_steps": 300})
    assert text.startswith("performance: 10 warm-up + 300 timed steps")


def test_convergence_says_its_target_and_limits() -> None:
    text = run_mode_text({"target_accuracy": 0.759, "max_epochs": 90, "max_steps": None})
    assert text == "convergence: train toward target_accuracy = 0.759, at most max_epochs = 90"
    assert "no step or epoch limit" in run_mode_text({"target_loss": 2.0})


def test_input_modes_and_smoke_data(tmp_path: Path) -> None:
    assert input_mode_text({"data_mode": "synthetic"}, str(tmp_path)).startswith("synthetic")
    assert input_mode_text({"data_mode": "predecoded"}, str(tmp_path)).startswith("pre-decoded")
    assert "4 DataLoader workers" in input_mode_text({"data_mode": "real", "num_workers": 4}, str(tmp_path))
    assert input_mode_text({}, str(tmp_path)) == "the case's data set in its data dir"
    (tmp_path / "dataset.json").write_text(json.dumps({"name": "digits", "smoke_test": "yes"}))
    assert input_mode_text({"data_mode": "real", "num_workers": 0}, str(tmp_path)).endswith(
        f"smoke data ({tmp_path / 'dataset.json'}: digits)")
    assert "smoke" not in input_mode_text({"data_mode": "synthetic"}, str(tmp_path))
