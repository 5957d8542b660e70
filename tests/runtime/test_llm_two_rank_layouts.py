"""Pipeline and expert parallelism train as one process does (the cheap pair; the 4-rank
layouts are in tests/cases/test_llm_layouts.py): llama3_8B's tiny preset over 2 pipeline
stages (1F1B) and mixtral_8x7B's over 2 expert-parallel ranks give one process's step losses
and eval loss, to layoutsteps.RTOL."""

from __future__ import annotations

from pathlib import Path

import pytest
from layoutsteps import assert_same_training, layout_steps


@pytest.mark.parametrize("case, layout", [
    ("llama3_8B", "pipeline_parallel=2"),
    ("mixtral_8x7B", "expert_parallel=2"),
])
def test_two_ranks_train_as_one_process(case: str, layout: str, tmp_path: Path) -> None:
    one = layout_steps(case, 1, tmp_path / "one.json")
    two = layout_steps(case, 2, tmp_path / "two.json", layout)
    assert two["layout"]["world_size"] == 2
    assert_same_training(two, one)
