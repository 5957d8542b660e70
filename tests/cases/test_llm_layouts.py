"""4-rank layouts of the LLM cases train as one process does (gloo, tiny presets, 3 steps;
see tests/runtime/llm_layout_steps.py): llama3_8B with pipeline x tensor and pipeline x data
parallelism (GPipe there), mixtral_8x7B with expert x tensor and expert x data parallelism.
A hang fails (layoutsteps' timeout)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "runtime"))
from layoutsteps import assert_same_training, layout_steps  # noqa: E402

LAYOUTS = {
    "llama3_8B": [("pipeline_parallel=2", "tensor_parallel=2"),
                  ("pipeline_parallel=2", "pipeline_schedule='gpipe'")],
    "mixtral_8x7B": [("expert_parallel=2", "tensor_parallel=2"),
                     ("expert_parallel=2",)],
}


@pytest.mark.parametrize("case", sorted(LAYOUTS))
def test_four_rank_layouts_train_as_one_process(case: str, tmp_path: Path) -> None:
    one = layout_steps(case, 1, tmp_path / "one.json")
    for index, layout in enumerate(LAYOUTS[case]):
        got = layout_steps(case, 4, tmp_path / f"{index}.json", *layout)
        assert got["layout"]["world_size"] == 4 and got["layout"]["data_parallel"] >= 1
        assert_same_training(got, one)
