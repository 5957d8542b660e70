"""FlagPerf's four MMLU cases (chipperf_runtime.inference.mmlu) at CI size through their
entries' main: a generated question set and a tiny model written as a Hugging Face folder and
read back as a real checkpoint would be; the accuracy recounted from the same files with
transformers alone; the four models' full-size parameter counts; bad input."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from inferrun import BENCH, CONFIGS, argv, captured_events, cpu_vendor, load_entry

from chipperf_runtime.inference.mmlu import questions as mmlu
from chipperf_runtime.inference.mmlu.model import folder, full_size_config
from chipperf_runtime.inference.mmlu.tiny import write_model, write_questions
from chipperf_runtime.perflog import finished_problems

MODELS = ("llama2_7b_mmlu", "llama3_8b_mmlu", "deepseek_7b_mmlu", "Aquila_7b_mmlu")
SUBJECTS = ("abstract_algebra", "anatomy")
CI = ["weight_dir=tiny_hf", "mmlu_dir=mmlu", f"subjects=[{', '.join(SUBJECTS)}]",
      "warmup_questions=1", "reference_items=2", "max_items=null"]


@pytest.fixture(scope="module")
def data(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("mmlu")
    files = write_questions(root / "mmlu", SUBJECTS, dev=5, test=3, seed=0)
    write_model(root / "tiny_hf", files, vocab_size=300, seed=0)
    return root


def run(model: str, data: Path, out: Path, capsys, monkeypatch, *sets: str) -> tuple[int, list, str]:
    cpu_vendor(monkeypatch, f"{model}:pytorch_2.13")
    module = load_entry(BENCH / model / "pytorch" / "run_inference.py", f"{model}_run_inference")
    code = module.main(model, argv(CONFIGS / model, data, out, *CI, *sets))
    return code, *captured_events(capsys)


def recount(data: Path) -> tuple[int, int]:
    """(correct answers, prompt tokens) of the tiny model on the question set, with
    transformers alone: FlagPerf's prompt, argmax of the last position, its letters."""
    from transformers import AutoModelForCausalLM, AutoTokenizer

    path = folder(str(data), "tiny_hf")
    tokenizer = AutoTokenizer.from_pretrained(str(path))
    model = AutoModelForCausalLM.from_pretrained(str(path)).eval()
    questions = mmlu.load(data / "mmlu", SUBJECTS, 5, lambda t: len(tokenizer.tokenize(t)), 2048)
    correct = tokens = 0
    with torch.no_grad():
        for q in questions:
            ids = tokenizer(q.prompt, return_tensors="pt").input_ids
            token = int(model(input_ids=ids).logits[0, -1].argmax())
            correct += mmlu.predicted_letter(tokenizer.decode([token])) == q.answer
            tokens += ids.shape[-1]
    return correct, tokens


@pytest.mark.parametrize("model", MODELS)
def test_mmlu_case_reports_accuracy_and_throughput(model, data, tmp_path, capsys,
                                                   monkeypatch) -> None:
    code, events, err = run(model, data, tmp_path, capsys, monkeypatch)
    assert code == 0, err
    f = events[-1].value
    assert finished_problems(f, "inference") == []
    scores = events[-2].value["scores"]
    correct, tokens = recount(data)
    assert f["metric"]["name"] == "mmlu_accuracy"
    assert f["metric"]["value"] == scores["accuracy"] == correct / 6
    assert scores["answered"] == 6 and set(scores["subjects"]) == set(SUBJECTS)
    assert f["work_done"] == f["window_work"] == tokens and f["throughput"]["unit"] == "tokens/s"
    assert f["throughput"]["raw"] > 0 and f["latency_ms"]["count"] == 6
    assert f["reference"]["within_bound"] and f["converged"] is True
    assert f["preset"]["full_params"] == sum_params(model)


def sum_params(model: str) -> int:
    from transformers import LlamaForCausalLM

    with torch.device("meta"):
        return sum(p.numel() for p in LlamaForCausalLM(full_size_config(model)).parameters())


def test_full_size_parameter_counts() -> None:
    """Llama 2 7B and Llama 3 8B as Meta publishes them; DeepSeek LLM 7B (30 layers, vocab
    102400) and Aquila 7B (LLaMA's 7B shape with Aquila's 100008-token vocabulary) by count."""
    assert {m: sum_params(m) for m in MODELS} == {
        "llama2_7b_mmlu": 6_738_415_616, "llama3_8b_mmlu": 8_030_261_248,
        "deepseek_7b_mmlu": 6_910_365_696, "Aquila_7b_mmlu": 7_295_537_152}


def test_bf16_stays_within_its_bound(data, tmp_path, capsys, monkeypatch) -> None:
    code, events, err = run("llama3_8b_mmlu", data, tmp_path, capsys, monkeypatch,
                            "precision=bf16", "max_items=2")
    assert code == 0, err
    reference = events[-1].value["reference"]
    assert reference["within_bound"] and reference["max_abs_diff"] > 0


@pytest.mark.parametrize("sets, message", [
    (["weight_dir=missing"], "missing has no config.json: put the model's Hugging Face files"),
    (["subjects=[virology]"], "virology_dev.csv not found: the data dir needs MMLU's dev/"),
    (["subjects=[cooking]"], "subjects: cooking not among MMLU's 57 subjects"),
    (["batch_size=2"], "batch_size: must be 1 (one question per forward pass"),
    (["engine=tensorrt"], "engine 'tensorrt': the MMLU cases run eager or compile"),
])
def test_bad_input_is_one_message(data, tmp_path, capsys, monkeypatch, sets, message) -> None:
    code, _, err = run("llama2_7b_mmlu", data, tmp_path, capsys, monkeypatch, *sets)
    assert code == 2 and err.startswith("chipperf inference case llama2_7b_mmlu:pytorch_2.13: error:")
    assert message in err
