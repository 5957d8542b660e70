"""The Paddle LLM cases (llama1_7B, llama1_13B, gpt3_6.7B, gpt3_13B; code in
chipperf_runtime/training/paddlellm) on the host: 2 ranks started by chipperf's paddle
launcher (paddle.distributed.launch, gloo on CPU) train the tiny preset on the offline CI
corpus in FlagPerf's PaddleNLP layout to its target, data parallel (llama1) and tensor
parallel (gpt3); every layout (TP, PP, ZeRO stage 2) trains the same model as one rank; bad
degrees stop before training with one clear line.

Needs paddlepaddle and numpy on the host (requirements-test.txt)."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
from pathlib import Path

import pytest
from caserun import (
    Case,
    assert_case_error,
    check_converged,
    free_port,
    init_end,
    perflog_events,
    rank_logs,
)

from chipperf.launchers import paddle as paddle_launcher

LLAMA, GPT = Case("llama1_7B", "paddle"), Case("gpt3_6.7B", "paddle")


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("paddlellm") / "corpus"
    result = subprocess.run([sys.executable, str(LLAMA.dir / "prepare_data.py"), "--output",
                             str(out)], capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-3000:]
    assert (out / "ci_corpus_ids.npy").is_file() and (out / "ci_corpus_idx.npz").is_file()
    return out


def launch(case: Case, data_dir: Path, out_dir: Path, nproc: int, *sets: str,
           timeout: int = 600) -> subprocess.CompletedProcess:
    """The launch contract on one node: chipperf's paddle command line, with ``--set``s."""
    config = "config_xeonx1x2.py" if nproc == 2 else "config_xeonx1x1.py"
    ctx = case.context(data_dir, config, out_dir, nproc)
    ctx = dataclasses.replace(ctx, case_args=(*ctx.case_args, *(
        a for s in sets for a in ("--set", s))))
    env = case.env(NNODES="1", NODE_RANK="0", NPROC_PER_NODE=str(nproc), WORLD_SIZE=str(nproc))
    return subprocess.run(paddle_launcher.command(ctx), env=env, capture_output=True, text=True,
                          timeout=timeout)


def converged(case: Case, corpus: Path, out: Path, *sets: str) -> dict:
    result = launch(case, corpus, out, 2, *sets)
    logs = rank_logs(out)
    assert result.returncode == 0, result.stdout[-2000:] + "\n" + logs.get(0, "")[-4000:]
    events = perflog_events(logs[0])
    finished = dict(check_converged(events))
    assert init_end(events)["model_size"] == "tiny" and finished["work_unit"] == "tokens"
    assert finished["metric"]["name"] == "eval_loss" and finished["world_size"] == 2
    assert finished["preset"]["full_params"] > 6e9   # the tiny preset says it is one
    assert "[PerfLog]" not in logs[1]
    return {"init_end": init_end(events), "finished": finished}


@pytest.mark.integration
def test_llama1_two_ranks_data_parallel_converge(corpus: Path, tmp_path: Path) -> None:
    run = converged(LLAMA, corpus, tmp_path)
    assert run["init_end"]["layout"]["data_parallel"] == 2


@pytest.mark.integration
def test_gpt3_two_ranks_tensor_parallel_converge(corpus: Path, tmp_path: Path) -> None:
    run = converged(GPT, corpus, tmp_path, "tensor_parallel_degree=2",
                    "per_device_train_batch_size=16")
    assert run["init_end"]["layout"] == {"tensor_parallel": 2, "pipeline_parallel": 1,
                                         "data_parallel": 1, "sharding_parallel": 1,
                                         "sharding_stage": 0}


@pytest.mark.integration
def test_every_layout_trains_the_same_model(corpus: Path, tmp_path: Path) -> None:
    """Two optimizer steps of the same global batch (16) on one rank, TP 2, PP 2 and ZeRO
    stage 2 over 2 gloo ranks give the same validation loss (to float rounding); one launch
    (paddlellm_layouts.py) runs all four."""
    argv = [sys.executable, "-m", "paddle.distributed.launch", "--nproc_per_node", "2",
            "--master", f"127.0.0.1:{free_port()}", "--log_dir", str(tmp_path), "--max_restart",
            "0", str(Path(__file__).with_name("paddlellm_layouts.py")), str(corpus)]
    result = subprocess.run(argv, env=LLAMA.env(OMP_NUM_THREADS="1"), capture_output=True,
                            text=True, timeout=600)
    log = (tmp_path / "workerlog.0").read_text()
    assert result.returncode == 0, result.stdout[-2000:] + log[-4000:]
    losses = json.loads(log.split("LAYOUTS ", 1)[1].splitlines()[0])
    print(losses)
    one = losses.pop("one_rank")
    assert sorted(losses) == ["pp2", "tp2", "zero2"]
    assert all(abs(loss - one) < 1e-5 for loss in losses.values()), (one, losses)


def test_degrees_that_do_not_divide_the_world_stop_the_case(corpus: Path) -> None:
    result = LLAMA.run_config(corpus, "--set", "tensor_parallel_degree=2")
    assert_case_error(result, "tensor_parallel_degree 2 x pipeline_parallel_degree 1 does not "
                              "divide the world size 1")


def test_missing_data_dir_says_how_to_make_one(tmp_path: Path) -> None:
    result = GPT.run_config(tmp_path / "no")
    assert_case_error(result, f"data dir {tmp_path / 'no'} does not exist",
                      "gpt3_6.7B/paddle/prepare_data.py --output DIR")
