"""llava1.5_7b_continuetrain on the host, one process: llava1.5_7b's tiny CI config trains 30
finetune steps (performance mode: it stops there with its learning rate still high, its LLM
knowing the captions' template but not yet reading every picture) and writes every weight
(``save_checkpoint``, a PyTorch distributed checkpoint) into the data dir; the continue case
loads them, starts where the pretraining ended (its eval loss before the first step far below
a fresh model's ln 261 = 5.56, its first step's loss beside it), and trains the projector
alone under the frozen tower and decoder (FlagScale's freeze_ViT, freeze_LM) to its tiny
target, which the checkpoint had not reached. Without the checkpoint the case stops before
training, saying which case writes one.

The data is the case's prepare_data.py output (generated pictures, both stages' jsons); the
vendor configs are the cpu CI ones. Needs torch, transformers and Pillow."""

from __future__ import annotations

import math
import subprocess
import sys
from pathlib import Path

import pytest
from caserun import Case, assert_case_error, check_converged, perflog_events

CASE = "llava1.5_7b_continuetrain"
FOLDER = "LLaVA_megatron/vicuna_instruct_clip336_mlp_tp1_combined_mcore"   # the case's default
PRETRAIN_STEPS = 30
FRESH_LOSS = math.log(261)         # a fresh model's cross entropy over the 261 ids
PROJECTOR_PARAMETERS = 24_832      # the tiny projector: 64 x 128 + 128 + 128 x 128 + 128


@pytest.fixture(scope="module")
def pictures(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("llava_continue")
    prepare = Case(CASE, "pytorch").dir / "prepare_data.py"
    subprocess.run([sys.executable, str(prepare), "--output", str(out)], check=True, timeout=300)
    return out


def step_losses(log: str) -> list[float]:
    return [e.value["loss"] for e in perflog_events(log) if e.name == "STEP_END"]


def test_the_case_continues_from_llava1_5_7b_s_checkpoint_to_a_target_it_had_not_reached(
        pictures: Path) -> None:
    pretrain = Case("llava1.5_7b", "pytorch").run_config(
        pictures, "--set", "stage=finetune", "--set", "run_mode=performance",
        "--set", f"timed_steps={PRETRAIN_STEPS}", "--set", f"save_checkpoint={pictures / FOLDER}")
    assert pretrain.returncode == 0, pretrain.stderr[-3000:]
    assert len(step_losses(pretrain.stdout)) == PRETRAIN_STEPS // 5   # logged every 5 steps
    result = Case(CASE, "pytorch").run_config(pictures)
    assert result.returncode == 0, result.stderr[-3000:]
    finished = check_converged(perflog_events(result.stdout))
    execution, metric = finished["execution"], finished["metric"]
    assert execution["checkpoint"] == str(pictures / FOLDER)
    assert execution["stage"] == "pretrain" and execution["trained"] == "multi_modal_projector"
    assert finished["parameters"]["trainable"] == PROJECTOR_PARAMETERS
    start, first = execution["checkpoint_eval_loss"], step_losses(result.stdout)[0]
    assert start < FRESH_LOSS - 5 and abs(first - start) < 0.05, (start, first)
    assert metric["value"] <= metric["target"] < start, (metric, start)
    print(f"{CASE}: llava1.5_7b {PRETRAIN_STEPS} finetune steps; on the captions: {start:.4f} "
          f"before the first step, first step loss {first:.4f}, final eval loss "
          f"{metric['value']:.4f} (target {metric['target']})")


def test_the_case_without_its_checkpoint_stops_before_training(tmp_path: Path) -> None:
    prepare = Case(CASE, "pytorch").dir / "prepare_data.py"
    subprocess.run([sys.executable, str(prepare), "--output", str(tmp_path), "--samples", "64"],
                   check=True, timeout=300)
    result = Case(CASE, "pytorch").run_config(tmp_path)
    assert_case_error(result, f"checkpoint {tmp_path / FOLDER}: no PyTorch distributed "
                      "checkpoint there", "--set save_checkpoint=")
