"""Layouts of the LLM cases train as one process does (gloo, tiny presets, 3 steps; see
tests/runtime/llm_layout_steps.py): llama3_8B with pipeline x tensor and pipeline x data
parallelism (GPipe there) and context x tensor parallelism with sequence parallelism on 4
ranks, llama3_70B's 4-layer CI size with the interleaved 1F1B
schedule (2 stages per rank) and activation checkpointing on 2, mixtral_8x7B with expert x
tensor and expert x data parallelism on 4. A hang fails (layoutsteps' timeout)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "runtime"))
from layoutsteps import assert_same_training, layout_steps  # noqa: E402

LAYOUTS: dict[str, list[tuple[int, tuple[str, ...]]]] = {   # case: [(ranks, overrides)]
    "llama3_8B": [(4, ("pipeline_parallel=2", "tensor_parallel=2")),
                  (4, ("pipeline_parallel=2", "pipeline_schedule='gpipe'")),
                  (4, ("context_parallel=2", "tensor_parallel=2", "sequence_parallel=True"))],
    "llama3_70B": [(2, ("pipeline_parallel=2", "pipeline_schedule='interleaved_1f1b'",
                        "activation_checkpointing=True"))],
    "mixtral_8x7B": [(4, ("expert_parallel=2", "tensor_parallel=2")),
                     (4, ("expert_parallel=2",))],
}


@pytest.mark.parametrize("case", sorted(LAYOUTS))
def test_layouts_train_as_one_process(case: str, tmp_path: Path) -> None:
    one = layout_steps(case, 1, tmp_path / "one.json")
    for index, (ranks, layout) in enumerate(LAYOUTS[case]):
        got = layout_steps(case, ranks, tmp_path / f"{index}.json", *layout)
        assert got["layout"]["world_size"] == ranks
        assert_same_training(got, one)
