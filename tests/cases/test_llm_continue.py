"""The continue-training LLM cases on the host, one process each: the pretraining case's tiny
CI config trains 20 steps and writes its weights (``save_checkpoint``, a PyTorch distributed
checkpoint) into the data dir; the continue-training case loads them and starts where the
pretraining ended (its eval loss before the first step is the pretraining's last, its first
step's loss far below a fresh model's ln 259 = 5.56), then trains its tiny CI preset to its
target. aquila2_7b_finetune fine-tunes aquila2_7b's checkpoint on other data (generated
conversations): it starts far below a fresh model's loss there. Without the checkpoint the case
stops before training, saying which case writes one.

The corpus is the cases' own prepare_data.py output (byte-level ids); the vendor configs are
the cpu CI ones. Needs torch and transformers."""

from __future__ import annotations

import math
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from caserun import Case, assert_case_error, check_converged, init_end, perflog_events

# continue-training case -> (the case that writes its checkpoint, the checkpoint's folder)
CONTINUED = {"llama3_70B_continuetrain": ("llama3_70B", "llama3_ckpt"),
             "mixtral_8x7B_continuetrain": ("mixtral_8x7B", "mixtral_ckpt")}
PRETRAIN_STEPS = 20
FRESH_LOSS = math.log(259)         # a fresh model's cross entropy over the 259 byte-level ids


@pytest.fixture(scope="module")
def conversations(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("aquila2_finetune")
    prepare = Case("aquila2_7b_finetune", "pytorch").dir / "prepare_data.py"
    subprocess.run([sys.executable, str(prepare), "--output", str(out)], check=True, timeout=300)
    return out


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("llm_continue")
    prepare = Case("llama3_70B_continuetrain", "pytorch").dir / "prepare_data.py"
    subprocess.run([sys.executable, str(prepare), "--output", str(out)], check=True, timeout=300)
    return out


def last_eval_loss(log: str) -> float:
    return [e.value["value"] for e in perflog_events(log) if e.name == "EVALUATE"][-1]


def step_losses(log: str) -> list[float]:
    return [e.value["loss"] for e in perflog_events(log) if e.name == "STEP_END"]


@pytest.mark.parametrize("name", list(CONTINUED))
def test_the_case_continues_from_the_checkpoint_its_pretraining_case_wrote(
        name: str, corpus: Path, tmp_path: Path) -> None:
    writer, folder = CONTINUED[name]
    data = tmp_path / "data"
    shutil.copytree(corpus, data)
    pretrain = Case(writer, "pytorch").run_config(
        data, "--set", f"max_steps={PRETRAIN_STEPS}", "--set", f"eval_every_steps={PRETRAIN_STEPS}",
        "--set", "eval_samples=64", "--set", f"save_checkpoint={data / folder}")
    assert pretrain.returncode == 0, pretrain.stderr[-3000:]
    ended = last_eval_loss(pretrain.stdout)
    result = Case(name, "pytorch").run_config(data)
    assert result.returncode == 0, result.stderr[-3000:]
    events = perflog_events(result.stdout)
    init = init_end(events)
    assert init["checkpoint"] == str(data / folder)
    assert init["checkpoint_eval_loss"] == pytest.approx(ended, rel=1e-6)
    first = step_losses(result.stdout)[0]
    assert abs(first - ended) < 0.3 and first < FRESH_LOSS - 1.5, (first, ended)
    finished = check_converged(events)
    print(name, f"pretraining {PRETRAIN_STEPS} steps: eval loss {ended:.4f}; continued: first "
          f"step loss {first:.4f}, final eval loss {finished['metric']['value']:.4f} at step "
          f"{[e.value['step'] for e in events if e.name == 'EVALUATE'][-1]}")


def test_the_finetune_case_starts_from_aquila2_7b_s_checkpoint(
        corpus: Path, conversations: Path, tmp_path: Path) -> None:
    data = tmp_path / "conversations"
    shutil.copytree(conversations, data)
    pretrain = Case("aquila2_7b", "pytorch").run_config(
        corpus, "--set", f"max_steps={PRETRAIN_STEPS}", "--set", f"eval_every_steps={PRETRAIN_STEPS}",
        "--set", "eval_samples=64", "--set", f"save_checkpoint={data / 'checkpoints'}")
    assert pretrain.returncode == 0, pretrain.stderr[-3000:]
    result = Case("aquila2_7b_finetune", "pytorch").run_config(data)
    assert result.returncode == 0, result.stderr[-3000:]
    events = perflog_events(result.stdout)
    start = init_end(events)["checkpoint_eval_loss"]
    first = step_losses(result.stdout)[0]
    assert start < FRESH_LOSS - 1.5 and abs(first - start) < 0.3, (start, first)
    finished = check_converged(events)
    print(f"aquila2_7b_finetune: aquila2_7b {PRETRAIN_STEPS} steps: eval loss "
          f"{last_eval_loss(pretrain.stdout):.4f}; on the conversations: {start:.4f} before the "
          f"first step, first step loss {first:.4f}, final eval loss "
          f"{finished['metric']['value']:.4f}")


def test_the_case_without_its_checkpoint_stops_before_training(corpus: Path) -> None:
    result = Case("llama3_70B_continuetrain", "pytorch").run_config(corpus)
    assert_case_error(result, f"checkpoint {corpus / 'llama3_ckpt'}: no PyTorch distributed "
                      "checkpoint there", "--set save_checkpoint=")
