"""A case that trains stages one after the other (llava1.5_7b's stage "both"): the run's
FINISHED adds the stages' work and times, weights FLOPs by work and keeps each stage's own
(chipperf_runtime.training.driver.stages)."""

from __future__ import annotations

import pytest

from chipperf_runtime.perflog import finished_problems
from chipperf_runtime.training.driver import Attention, CaseError, Metric
from chipperf_runtime.training.driver.finished import build_finished
from chipperf_runtime.training.driver.perfmode import Mark, RunMode, StepWindow, performance_value
from chipperf_runtime.training.driver.stages import combine_stages
from chipperf_runtime.training.driver.windows import WindowTimes


def stage(work: int, train_s: float, flops: float, loss: float, target: float,
          trainable: int, unit: str = "tokens") -> dict:
    value = build_finished(WindowTimes(e2e_s=train_s + 1, train_s=train_s, no_eval_s=train_s - 0.5,
                                       compute_s=train_s - 1, eval_s=0.5),
                           work_done=work, work_unit=unit,
                           metric=Metric("eval_loss", loss, target, higher_is_better=False),
                           flops_per_unit=flops, dtype="bf16", world_size=8,
                           peak_memory_bytes=trainable * 10)
    value["parameters"] = {"trainable": trainable, "total": 1000}
    return value


def test_the_run_is_both_stages_work_over_both_stages_windows() -> None:
    pretrain = stage(4000, 10.0, 4.0, 2.0, 2.1, 20)
    finetune = stage(2000, 20.0, 6.0, 0.5, 0.48, 900)
    run = combine_stages({"pretrain": pretrain, "finetune": finetune})
    assert finished_problems(run) == []
    assert run["work_done"] == 6000 and run["train_time_s"] == 30.0
    assert run["train_no_eval_time_s"] == 29.0 and run["pure_compute_time_s"] == 28.0
    assert run["throughput"] == {"raw": 200.0, "no_eval": 6000 / 29, "pure_compute": 6000 / 28,
                                 "unit": "tokens/s"}
    # MFU = every stage's FLOPs over the summed time (FlagPerf's "two-stage average")
    assert run["flops_per_unit"] == (4000 * 4.0 + 2000 * 6.0) / 6000
    assert run["metric"] == finetune["metric"] and run["converged"] is False  # finetune missed
    assert run["peak_memory_bytes"] == 9000
    assert run["parameters"] == {"trainable": 900, "total": 1000}
    assert run["stages"] == {"pretrain": pretrain, "finetune": finetune}


def test_a_performance_run_sums_the_timed_windows_and_keeps_each_stage_s_own() -> None:
    def timed(value: dict, seconds: float) -> dict:
        window = StepWindow(RunMode("performance", 2, 3))
        window.mark(Mark(2, 100.0, 5.0, 4.0))
        window.mark(Mark(5, 400.0, 5.0 + seconds, 4.0 + seconds / 2))
        return performance_value(value, window, 8)

    pretrain = timed(stage(4000, 10.0, 4.0, 2.0, 2.1, 20), 3.0)
    finetune = timed(stage(2000, 20.0, 6.0, 0.5, 0.48, 900), 6.0)
    run = combine_stages({"pretrain": pretrain, "finetune": finetune})
    assert finished_problems(run) == []
    assert run["work_done"] == 2 * 2400 and run["train_time_s"] == 9.0
    assert run["run_mode"]["timed_work"] == 4800
    assert "timed_window_s" not in run["run_mode"]      # no one window: each stage has its own
    assert run["stages"]["finetune"]["run_mode"]["timed_window_s"] == 6.0
    assert run["run_mode"]["whole_run"]["work_done"] == 6000
    assert run["run_mode"]["whole_run"]["train_time_s"] == 30.0


def test_stages_of_different_work_units_are_not_added_up() -> None:
    with pytest.raises(CaseError, match="differ in work_unit"):
        combine_stages({"a": stage(10, 2.0, 1.0, 1.0, 1.0, 1),
                        "b": stage(10, 2.0, 1.0, 1.0, 1.0, 1, unit="samples")})


def test_the_attention_part_is_weighted_like_the_flops_and_checked() -> None:
    def counted(work: int, flops: float, attention: float, causal: bool) -> dict:
        value = stage(work, 10.0, flops, 2.0, 2.1, 20)
        return {**value, **Attention(attention, causal).as_dict()}

    run = combine_stages({"pretrain": counted(4000, 4.0, 1.0, True),
                          "finetune": counted(2000, 6.0, 2.0, True)})
    assert finished_problems(run) == []
    assert run["attention_flops_per_unit"] == (4000 * 1.0 + 2000 * 2.0) / 6000
    assert run["causal_attention"] is True
    # stages that disagree on causal (or one that does not count) leave the run without a pair
    mixed = combine_stages({"pretrain": counted(4000, 4.0, 1.0, True),
                            "finetune": counted(2000, 6.0, 2.0, False)})
    assert "attention_flops_per_unit" not in mixed and "causal_attention" not in mixed
    with pytest.raises(CaseError, match="attention part cannot exceed the whole"):
        build_finished(WindowTimes(e2e_s=11, train_s=10, no_eval_s=9.5, compute_s=9, eval_s=0.5),
                       work_done=1, work_unit="tokens", metric=Metric("eval_loss", 1.0, 2.0),
                       flops_per_unit=6.0, dtype="bf16", world_size=1, peak_memory_bytes=None,
                       attention=Attention(7.0, causal=True))
