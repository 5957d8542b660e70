"""The LLM cases' shared code (llmtrain), through llama3_8B on the host: a layout that does not divide
the world and a non-finite loss stop the case, and performance mode times a fixed step count.
Training to the tiny CI size's eval-loss target: tests/e2e/test_cases_e2e.py (tensor parallel
inside each of two hosts, FSDP2 across them); pipeline and expert parallel layouts training as
one process does: tests/cases/test_llm_layouts.py and tests/runtime/test_llm_two_rank_layouts.py.

The data dir is made by the case's own prepare_data.py from text already on the machine; the
vendor configs are the cpu CI ones. Needs torch and transformers (requirements-test.txt).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from caserun import Case, assert_case_error, perflog_events

CASES = {"llama3_8B": Case("llama3_8B", "pytorch")}


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("llm_ci")
    subprocess.run([sys.executable, str(CASES["llama3_8B"].dir / "prepare_data.py"), "--output",
                    str(out)], check=True, timeout=300)
    return out


# ---------------------------------------------------------------- errors before training


def test_a_layout_that_does_not_divide_the_world_fails(corpus: Path) -> None:
    """(The layout checks are llmtrain's, the same for both cases.)"""
    result = CASES["llama3_8B"].run_config(corpus, "--set", "tensor_parallel=3")
    assert_case_error(result, "tensor_parallel 3 does not divide the world size 1")


def test_a_nan_loss_ends_the_case_as_failed_at_its_step(corpus: Path) -> None:
    result = CASES["llama3_8B"].run_config(corpus, "--set", "learning_rate=1e30",
                                           "--set", "warmup_steps=1", "--set", "grad_clip_norm=0.0")
    assert result.returncode == 2, result.stderr[-3000:]
    assert "chipperf case error: training diverged: loss is nan at step" in result.stderr
    assert "TRAIN_START" in result.stdout and "FINISHED" not in result.stdout


def test_performance_mode_times_300_style_fixed_steps_on_one_rank(corpus: Path) -> None:
    """FlagPerf's LLM way (a fixed step count, here 2 warm-up + 4 timed): FINISHED from the
    timed steps, no evaluation, tokens as the unit."""
    result = CASES["llama3_8B"].run_config(corpus, "--set", "run_mode=performance", "--set",
                                           "perf_warmup_steps=2", "--set", "timed_steps=4")
    assert result.returncode == 0, result.stderr[-3000:]
    events = perflog_events(result.stdout)
    assert "EVALUATE" not in [e.name for e in events]
    finished = events[-1].value
    assert finished["run_mode"]["timed_last_step"] == 6 and finished["work_unit"] == "tokens"
    assert finished["work_done"] == 4 * finished["run_mode"]["whole_run"]["work_done"] // 6
    assert finished["converged"] is False and finished["metric"]["value"] is None
    assert finished["execution"]["implementation"] == "native"


def test_the_megatron_core_implementation_stops_before_training_on_a_cpu(corpus: Path) -> None:
    """``implementation = "megatron_core"`` (llmtrain.nvidia.megatron) needs NVIDIA GPUs: on the
    host CPU the case says so before anything trains (the plan refuses the cpu vendor earlier)."""
    result = CASES["llama3_8B"].run_config(corpus, "--set", "implementation='megatron_core'")
    assert_case_error(result, "implementation 'megatron_core': Megatron-Core's schedules "
                              "allocate on CUDA and this process's device is 'cpu'")
