"""A continue-training case's checkpoint need (chipperf.config.caseneeds: ``checkpoint: {knob,
written_by}`` in case.yaml, the continue-training and fine-tuning cases'): plan
time refuses a config that names no checkpoint, or one outside the data dir; whether the
folder is there is known on the hosts only (the case says so at its start)."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from chipperf.config.caseneeds import checkpoint_problems, needs_problems

BENCHMARKS = Path(__file__).resolve().parents[2] / "training" / "benchmarks"
NEED = {"knob": "checkpoint", "written_by": "llama3_70B"}


def test_a_folder_under_the_data_dir_is_accepted():
    assert checkpoint_problems(NEED, {"checkpoint": "llama3_ckpt"}, "w") == []
    assert checkpoint_problems(NEED, {"checkpoint": "ckpts/step500"}, "w") == []


@pytest.mark.parametrize("value", ["", "  ", None])
def test_no_checkpoint_named_is_refused_naming_the_case_that_writes_one(value):
    (problem,) = checkpoint_problems(NEED, {"checkpoint": value}, "w: config_H100x4x8.py")
    assert problem.startswith(f"w: config_H100x4x8.py: checkpoint = {value!r}: this case "
                              "continues training from a checkpoint and none is named: set "
                              "checkpoint to its folder under the data dir; llama3_70B writes one "
                              "with --set save_checkpoint=<data dir>/<folder>"), problem


@pytest.mark.parametrize("value", ["/abs/ckpt", "../elsewhere", "a/../../b"])
def test_a_folder_outside_the_data_dir_is_refused(value):
    (problem,) = checkpoint_problems(NEED, {"checkpoint": value}, "w")
    assert f"checkpoint = {value!r}: the checkpoint is read from under the case's data dir: " \
        "give a relative folder without '..'" in problem


def test_a_case_without_the_need_is_not_checked():
    assert checkpoint_problems(None, {}, "w") == []
    assert needs_problems({}, {"checkpoint": ""}, 1, 1, None, "w") == []


@pytest.mark.parametrize("case, writer", [("llama3_70B_continuetrain", "llama3_70B"),
                                          ("mixtral_8x7B_continuetrain", "mixtral_8x7B"),
                                          ("aquila2_7b_finetune", "aquila2_7b"),
                                          ("llava1.5_7b_continuetrain", "llava1.5_7b")])
def test_the_continue_training_cases_declare_it(case, writer):
    needs = yaml.safe_load((BENCHMARKS / case / "pytorch" / "case.yaml").read_text())
    assert needs["checkpoint"] == {"knob": "checkpoint", "written_by": writer}
    values = {"checkpoint": "", "tensor_parallel": 1, "pipeline_parallel": 1}
    (problem,) = needs_problems(needs, values, 1, 1, None, "w")
    assert f"{writer} writes one" in problem
