"""FlagPerf's LLM text lines and inference Finish Info, parsed from its formats."""

from __future__ import annotations

from pathlib import Path

from chipperf.results.read.flagperf_text import parse_finish_info, parse_llm_log

LOGS = Path(__file__).resolve().parent / "data" / "flagperf" / "logs"


def _lines(name: str) -> list[str]:
    """The sample's log lines (its header comment, naming the source, left out)."""
    return [t for t in (LOGS / name).read_text().splitlines() if not t.startswith("# ")]


def test_deepspeed_llm_lines():
    values, problems = parse_llm_log(_lines("llama2_7b_deepspeed_rank0.out.log"))
    assert problems == []
    assert values == {"final_loss": 6.5021, "system_tokens_per_s": 24576.0,
                      "tokens_per_chip_per_s": 3072.0, "theory_tflops": 312.0,
                      "mfu": 0.41353846153846156}


def test_megatron_loss_and_tokens():
    values, problems = parse_llm_log(_lines("megatron_tail.out.log"))
    assert problems == [] and values["final_loss"] == 8.765432 and values["mfu"] == 0.5


def test_truncated_llm_log_names_its_last_line():
    lines = _lines("llama2_7b_deepspeed_rank0.out.log")[:2]
    values, problems = parse_llm_log(lines)
    assert values == {"final_loss": 6.5021}
    assert problems == ["line 2: the log ends without FlagPerf's System tokens per second and MFU "
                        "line(s): the case did not finish (or the log is truncated)"]


def test_mfu_given_as_a_percentage_is_a_problem():
    _, problems = parse_llm_log(["System tokens per second:  1.0", "MFU:  45.1"])
    assert problems == ["MFU 45.1 is not a share in (0, 1]"]


def test_finish_info():
    info, problems = parse_finish_info(_lines("inference_container.out.log"))
    assert problems == []
    assert info["*p_inference_core(qps)"] == 2100.0 and info["precision"] == "fp16"
    assert info["e2e_time(second)"] == 512.3 and info["batchsize"] == 256


def test_finish_info_truncated_or_missing():
    line = _lines("inference_container.out.log")[0]
    assert parse_finish_info(["x", line[:80]]) == (
        {}, ["line 2: 'Finish Info' is not followed by a dict literal (truncated line?)"])
    assert parse_finish_info(["a", "b"]) == (
        {}, ["line 2: no 'Finish Info' line: the case did not finish (or the log is truncated)"])
