"""lm-eval (``lm-eval[api]``, its ``local-completions`` model) against a live transformers engine
server (``tfserver``) on a tiny seeded random Llama, offline, through the served mode's own
``harness.py``: chipperf's two local tasks run, and their scores are recounted here from the
same weights (exact match from the server's greedy answers; multiple choice from
log-likelihoods of transformers' forward pass), so the harness path, tfserver's stop strings,
echo and logprobs are what they claim (the case's task check, ``preflight``, runs in the
next test). An unknown task and one whose dataset is not cached
stop the case before its server starts, one message naming each; so do a local task's missing
data file and a model folder without a tokenizer.
"""

from __future__ import annotations

import functools
import json
import os
import socket
import urllib.request
from pathlib import Path
from typing import Iterator

import pytest

from chipperf_runtime.models.tvision import prepare_torchvision

prepare_torchvision()

import torch  # noqa: E402

from chipperf_runtime.inference import config as configuration  # noqa: E402
from chipperf_runtime.inference.errors import CaseError  # noqa: E402
from chipperf_runtime.inference.llm.served import harness, lmtasks  # noqa: E402
from chipperf_runtime.inference.llm.served.server import ServerSpec, ServingProcess  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
TASKS = ("chipperf_arith", "chipperf_arith_mc")
LIMIT = 4


@pytest.fixture(scope="module")
def model_dir(tiny_llama_dir: Path) -> Path:
    return tiny_llama_dir


@pytest.fixture(scope="module")
def server(model_dir: Path, tmp_path_factory: pytest.TempPathFactory
           ) -> Iterator[ServingProcess]:
    os.environ.setdefault("CHIPPERF_DEVICE", "cpu")
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = int(probe.getsockname()[1])
    spec = ServerSpec("transformers", model_dir, port, seed=42)
    with ServingProcess(spec, tmp_path_factory.mktemp("log") / "server.log") as running:
        running.wait_ready(300)
        yield running


def harness_run(tasks: tuple[str, ...], folder: Path, server: ServingProcess,
                model_dir: Path) -> harness.HarnessRun:
    found = lmtasks.local_tasks(tasks, {}, folder, folder)
    include = lmtasks.write_tasks(found, 42, folder)
    return harness.HarnessRun(tasks, include, LIMIT, server.spec.base_url, str(model_dir),
                              model_dir, 128, 42)


def test_lmeval_scores_the_local_tasks_as_the_weights_answer(server: ServingProcess,
                                                             model_dir: Path,
                                                             tmp_path: Path) -> None:
    from chipperf_runtime.inference.llm.served import case
    from chipperf_runtime.inference.llm.served.settings import ServedSettings

    cfg = configuration.load(REPO / "inference/configs/llama3_8b", "cpu_configuration.yaml", [
        "engine=transformers_server", f"serve_lmeval_limit={LIMIT}"])
    run = harness_run(TASKS, tmp_path, server, model_dir)
    record = case.ask_harness(server, run, ServedSettings.from_config(cfg), tmp_path)
    assert (tmp_path / "results.json").is_file() and "not_run" not in record, record
    scores = {s["task"]: s for s in record["scores"]}
    assert sorted(scores) == list(TASKS) and all(s["n"] == LIMIT for s in scores.values())
    assert record["meaningful"] is False and record["harness"].startswith("lm-eval 0.4.")
    exact = lmtasks.arithmetic(42, LIMIT, "exact_match")
    answers = [greedy_answer(server, model_dir, item["question"]) for item in exact]
    assert scores["chipperf_arith"]["value"] == sum(
        a == item["answer"] for a, item in zip(answers, exact)) / LIMIT
    choice = lmtasks.arithmetic(42, LIMIT, "multiple_choice")
    assert scores["chipperf_arith_mc"]["value"] == sum(
        best_choice(model_dir, item) == item["label"] for item in choice) / LIMIT


@functools.lru_cache(maxsize=1)
def reference(model_dir: Path) -> tuple:
    from transformers import AutoModelForCausalLM, AutoTokenizer

    return (AutoTokenizer.from_pretrained(str(model_dir)),
            AutoModelForCausalLM.from_pretrained(str(model_dir), dtype=torch.float32).eval())


def greedy_answer(server: ServingProcess, model_dir: Path, question: str) -> str:
    """The server's greedy answer to the task's prompt, cut at the first newline."""
    body = {"model": str(model_dir), "prompt": f"Question: {question}\nAnswer:",
            "max_tokens": 8, "stop": ["\n"]}
    request = urllib.request.Request(server.spec.base_url + "/v1/completions",
                                     data=json.dumps(body).encode(),
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=60) as reply:
        text = json.loads(reply.read())["choices"][0]["text"]
    assert "\n" not in text
    return str(text).strip().lower()


def best_choice(model_dir: Path, item: dict) -> int:
    """The choice whose tokens the model finds likeliest after the prompt (lm-eval's split:
    context tokens, then the rest of " <choice>"), from transformers' own forward pass."""
    tokenizer, weights = reference(model_dir)
    context = f"Question: {item['question']}\nAnswer:"
    start = len(tokenizer.encode(context, add_special_tokens=False))
    totals = []
    for text in item["choices"]:
        ids = tokenizer.encode(f"{context} {text}", add_special_tokens=False)
        with torch.inference_mode():
            logp = torch.log_softmax(weights(torch.tensor([ids])).logits[0].float(), dim=-1)
        totals.append(sum(float(logp[i - 1, ids[i]]) for i in range(start, len(ids))))
    return totals.index(max(totals))


def test_an_unknown_task_and_an_uncached_hub_task_are_named_before_serving(
        server: ServingProcess, model_dir: Path, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HF_HOME", str(tmp_path / "empty-hf-cache"))
    run = harness_run(("chipperf_arith", "no_such_task", "arc_easy"), tmp_path, server, model_dir)
    with pytest.raises(CaseError) as caught:
        harness.preflight(run, tmp_path / "harness.log")
    lines = str(caught.value).splitlines()
    assert lines[0].startswith("serve_lmeval_tasks: 'no_such_task' is neither an lm-eval task")
    assert lines[1].strip().startswith("'arc_easy' needs its dataset from the Hugging Face hub, "
                                       "and it is not in this machine's cache")
    assert len(lines) == 2


def test_a_missing_data_file_and_a_folder_without_tokenizer_stop_the_case(tmp_path: Path) -> None:
    from chipperf_runtime.inference.llm.served import case
    from chipperf_runtime.inference.llm.served.settings import ServedSettings

    cfg = configuration.load(REPO / "inference/configs/llama3_8b", "cpu_configuration.yaml", [
        "engine=transformers_server", "serve_lmeval_tasks=[mine, chipperf_arith]",
        "serve_lmeval_local_tasks={mine: {kind: exact_match, data_file: gone.jsonl}}"])
    bare = tmp_path / "bare-model"
    bare.mkdir()
    with pytest.raises(CaseError) as caught:
        case.prepare_harness(ServedSettings.from_config(cfg), ServerSpec("transformers", bare, 1),
                             42, tmp_path, tmp_path / "out")
    assert str(caught.value).splitlines() == [
        "configuration problems:",
        f"  serve_lmeval_local_tasks.mine.data_file: {tmp_path}/gone.jsonl is not a file: write "
        "the task's examples there, one JSON object per line (question, answer)",
        f"  serve_lmeval_tasks: the model folder {bare} has no tokenizer (tokenizer.json or "
        "tokenizer_config.json): lm-eval tokenises with the folder's own; save the "
        "checkpoint's tokenizer there"]
