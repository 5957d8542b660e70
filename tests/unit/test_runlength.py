"""Plan-time run-length checks: bad performance-mode step counts, and a convergence run the
round deadline cannot hold."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from chipperf.config.model import CaseEntry, CaseKey, ClusterConfig, TestConfig
from chipperf.config.runlength import deadline_warning, run_mode_problems
from chipperf.plan import case_knobs, check, make_plan
from chipperf.suites.catalogue import Catalogue

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(("knobs", "says"), [
    ({"run_mode": "performance", "timed_steps": 0}, "timed_steps = 0: nothing would be timed"),
    ({"run_mode": "performance", "perf_warmup_steps": 20, "timed_steps": 300, "max_steps": 100},
     "max_steps = 100 stops the run before perf_warmup_steps + timed_steps = 20 + 300"),
    ({"run_mode": "benchmark"}, "run_mode = 'benchmark': unknown run mode"),
])
def test_bad_performance_step_counts_are_one_message(knobs: dict, says: str) -> None:
    problems = run_mode_problems(knobs, "test_conf.py: CASES['gpt2:...']")
    assert len(problems) == 1 and says in problems[0]
    assert problems[0].startswith("test_conf.py: CASES['gpt2:...']: ")


def test_good_run_modes_pass() -> None:
    assert run_mode_problems({}, "w") == []
    assert run_mode_problems({"run_mode": "performance", "perf_warmup_steps": 10,
                              "timed_steps": 300, "max_steps": 500000}, "w") == []


def test_deadline_warning_is_arithmetic_on_max_steps_and_the_deadline() -> None:
    said = deadline_warning({"run_mode": "convergence", "max_steps": 500000}, 3600.0)
    assert said is not None
    assert "max_steps = 500000" in said and "3600 s" in said and "7.2 ms a step" in said
    assert 'run_mode = "performance"' in said
    assert deadline_warning({"max_steps": 2000}, 3600.0) is None           # 1.8 s a step
    assert deadline_warning({"max_steps": None, "max_epochs": 90}, 3600.0) is None
    assert deadline_warning({"run_mode": "performance", "max_steps": 500000}, 3600.0) is None


def _configs(key: str, timeout: float = 3600.0) -> tuple[ClusterConfig, TestConfig]:
    return (ClusterConfig(hosts=("10.1.2.2",)),
            TestConfig(vendor="nvidia", cases=(CaseEntry(CaseKey.parse(key), "/raid/data"),),
                       round_timeout_s=timeout))


def test_shipped_llm_configs_plan_in_performance_mode_without_a_warning() -> None:
    catalogue = Catalogue.scan(REPO / "training")
    cluster, test = _configs("llama3_8B:pytorch_2.13:H100:1:8:1")
    knobs = case_knobs(test.cases[0], test, catalogue)
    assert (knobs["run_mode"], knobs["perf_warmup_steps"], knobs["timed_steps"]) == \
        ("performance", 10, 300)
    assert not [n for n in make_plan(cluster, test, catalogue, "run1", Path("r")).cases[0].notes
                if "convergence mode" in n]


def test_a_full_size_convergence_config_is_warned_at_plan_time() -> None:
    """nvidia's bert-large config trains toward its MLPerf target for up to 1,000,000 steps."""
    catalogue = Catalogue.scan(REPO / "training")
    cluster, test = _configs("bert:pytorch_2.13:H100:1:8:1")
    notes = make_plan(cluster, test, catalogue, "run1", Path("r")).cases[0].notes
    warned = [n for n in notes if "convergence mode" in n]
    assert len(warned) == 1 and warned[0].startswith("bert:pytorch_2.13:H100:1:8:1: ")
    assert "max_steps = 1000000" in warned[0] and "3.6 ms a step" in warned[0]
    cluster, test = _configs("bert:pytorch_2.13:H100:1:8:1", timeout=1e6)
    assert not [n for n in make_plan(cluster, test, catalogue, "run1", Path("r")).cases[0].notes
                if "convergence mode" in n]


def test_plan_check_refuses_a_vendor_config_with_nothing_to_time(tmp_path: Path) -> None:
    root = tmp_path / "training"
    shutil.copytree(REPO / "training/benchmarks/llama2_7b", root / "benchmarks/llama2_7b",
                    ignore=shutil.ignore_patterns("__pycache__"))
    config = root / "nvidia/llama2_7b-deepspeed/config"
    config.mkdir(parents=True)
    (config / "config_A100x1x8.py").write_text("run_mode = 'performance'\ntimed_steps = 0\n")
    (root / "nvidia/docker_image/deepspeed_0.19").mkdir(parents=True)
    (root / "nvidia/docker_image/deepspeed_0.19/Dockerfile").write_text("")
    cluster, test = _configs("llama2_7b:deepspeed_0.19:A100:1:8:1")
    problems = check(cluster, test, Catalogue.scan(root), where="test_conf.py")
    assert [p for p in problems if "timed_steps" in p] == [
        "test_conf.py: CASES['llama2_7b:deepspeed_0.19:A100:1:8:1']: run_mode = 'performance' "
        "with timed_steps = 0: nothing would be timed: set timed_steps to the number of steps "
        "to time (FlagPerf's LLM cases time 300)"]


def test_flagperf_train_steps_maps_to_timed_steps_in_performance_mode(tmp_path: Path) -> None:
    from chipperf.config.vendorconfig import check_vendor_config

    config_dir = REPO / "training/benchmarks/llama3_8B/pytorch/config"
    path = tmp_path / "config_H100x1x8.py"
    path.write_text("train_steps = 300\n")          # FlagPerf's llama3_8B-megatron H100 file
    checked = check_vendor_config(config_dir, path, "llama3_8B:pytorch", (REPO,))
    assert checked.problems == ()
    assert checked.values == {"timed_steps": 300, "run_mode": "performance"}
    assert checked.notes(path) == (
        f"{path}: train_steps is FlagPerf's name for timed_steps: set as timed_steps",
        f"{path}: run_mode = 'performance', implied by FlagPerf's train_steps")
    path.write_text("train_steps = 300\nrun_mode = 'convergence'\n")   # said: kept
    kept = check_vendor_config(config_dir, path, "llama3_8B:pytorch", (REPO,))
    assert kept.values["run_mode"] == "convergence" and kept.implied == ()
