"""Pipeline, expert, context and sequence parallelism train as one process does (the cheap
pairs; the 4-rank layouts are in tests/cases/test_llm_layouts.py): llama3_8B's tiny preset over
2 pipeline stages (1F1B), over 2 context-parallel ranks (each holding half of every sequence,
llmtrain/context.py) and over tensor parallel 2 with sequence parallelism
(llmtrain/sequence.py), and mixtral_8x7B's over 2 expert-parallel ranks give one process's step
losses and eval loss, to layoutsteps.RTOL. The sequence-splitting layouts also show the split:
the first decoder layer's output holds seq / cp (/ tp) tokens on each rank."""

from __future__ import annotations

import functools
import tempfile
from pathlib import Path

import pytest
from layoutsteps import assert_same_training, layout_steps

SEQ_LEN = 32    # llm_layout_steps.py's


@functools.cache
def one_process(case: str) -> dict:
    """One process's steps, run once per case for every layout here."""
    return layout_steps(case, 1, Path(tempfile.mkdtemp(prefix="llm_one_")) / "one.json")


@pytest.mark.parametrize("case, layout, tokens", [
    ("llama3_8B", ("pipeline_parallel=2",), SEQ_LEN),
    ("llama3_8B", ("context_parallel=2",), SEQ_LEN // 2),
    ("llama3_8B", ("tensor_parallel=2", "sequence_parallel=True"), SEQ_LEN // 2),
    ("mixtral_8x7B", ("expert_parallel=2",), SEQ_LEN),
])
def test_two_ranks_train_as_one_process(case: str, layout: tuple[str, ...], tokens: int,
                                        tmp_path: Path) -> None:
    two = layout_steps(case, 2, tmp_path / "two.json", *layout)
    assert two["layout"]["world_size"] == 2
    assert two["layer_tokens"] == tokens
    assert_same_training(two, one_process(case))
