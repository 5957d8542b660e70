"""Context and sequence parallelism checked at plan time (chipperf.config.caseneeds: ``parallel:
sequence: {length: seq_len}`` in the long-context LLM cases' case.yaml; the rules are
llmtrain/seqsplit.py's, which the case applies again at its start): a context-parallel degree
whose 2 x cp chunks do not divide the sequence, sequence parallelism without tensor
parallelism, and a tensor-parallel group that does not divide a rank's part of the sequence,
one message each."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from chipperf.config.caseneeds import needs_problems
from chipperf_runtime.training.llmtrain.seqsplit import sequence_split_problems

BENCHMARKS = Path(__file__).resolve().parents[2] / "training" / "benchmarks"
SEQUENCE_CASES = ("llama3_8B", "llama3_70B", "llama2_70B", "llama3_70B_continuetrain",
                  "mixtral_8x7B")


def needs(case: str) -> dict:
    return yaml.safe_load((BENCHMARKS / case / "pytorch" / "case.yaml").read_text())


def values(seq_len: int, cp: int = 1, tp: int = 1, sp: bool = False) -> dict:
    return {"seq_len": seq_len, "context_parallel": cp, "tensor_parallel": tp,
            "sequence_parallel": sp, "pipeline_parallel": 1, "model_size": "tiny"}


@pytest.mark.parametrize("case", SEQUENCE_CASES)
def test_the_long_context_cases_declare_the_sequence_split(case: str) -> None:
    parallel = needs(case)["parallel"]
    assert parallel["sequence"] == {"length": "seq_len"}
    assert "context_parallel" in parallel["degrees"]


@pytest.mark.parametrize("settings, says", [
    (values(100, cp=4, tp=2),
     "w: context_parallel 4 needs seq_len divisible by 2 x 4 = 8 (each rank holds two of 8 "
     "equal chunks, llmtrain/context.py): seq_len 100 is not; choose a multiple of 8"),
    (values(8192, cp=2, sp=True),
     "w: sequence_parallel = True needs tensor_parallel > 1 (Megatron's sequence parallelism "
     "splits the norms' tokens over the tensor-parallel group): set tensor_parallel, or "
     "sequence_parallel = False"),
    (values(20, cp=2, tp=4, sp=True),
     "w: sequence_parallel: tensor_parallel 4 must divide the 10 tokens of a sequence each rank "
     "holds (seq_len 20 / context_parallel 2): choose a seq_len that 8 divides"),
])
def test_plan_time_names_each_sequence_split_problem_once(settings: dict, says: str) -> None:
    assert needs_problems(needs("llama3_8B"), settings, 1, 8, None, "w") == [says]


def test_a_context_parallel_degree_counts_in_the_world_and_the_data_parallel_degree() -> None:
    """cp x tp must divide the world; expert parallelism takes what is left of it."""
    (problem,) = needs_problems(needs("llama3_8B"), values(64, cp=3, tp=2), 1, 8, None, "w")
    assert problem.startswith("w: tensor_parallel 2 x context_parallel 3 does not divide the "
                              "world size 8"), problem
    mixtral = values(64, cp=2, tp=2) | {"expert_parallel": 4}
    (problem,) = needs_problems(needs("mixtral_8x7B"), mixtral, 1, 8, None, "w")
    assert problem.startswith("w: expert_parallel 4 does not divide the data-parallel degree 2 "
                              "(world size 8 over 4)"), problem


def test_layouts_that_split_the_sequence_evenly_pass() -> None:
    for settings in (values(8192, cp=2), values(8192, cp=2, tp=4, sp=True),
                     values(4096, tp=8, sp=True), values(32)):
        assert needs_problems(needs("llama3_8B"), settings, 1, 8, None, "w") == [], settings


def test_the_rules_hold_without_a_case_yaml() -> None:
    """llmtrain.seqsplit alone (the case applies it at its start, with its own config)."""
    assert sequence_split_problems(30, 3, 1, False) == []
    (problem,) = sequence_split_problems(32, 3, 1, False)
    assert problem.startswith("context_parallel 3 needs seq_len divisible by 2 x 3 = 6")
    assert sequence_split_problems(32, 1, 1, False) == []
