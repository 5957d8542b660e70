"""bert / Paddle on the host: 2 ranks started by chipperf's paddle launcher
(paddle.distributed.launch, gloo on CPU, rankexec logs) train the CI model on the offline
corpus to its MLM-accuracy target; bad inputs fail before training with one clear line.

Needs paddlepaddle and numpy on the host (requirements-test.txt). The corpus is made by the
case's prepare_data.py from text already on the machine."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from caserun import Case, assert_case_error, check_converged, init_end, perflog_events, rank_logs

from chipperf.launchers import paddle as paddle_launcher

CASE = Case("bert", "paddle")

# The CI corpus: see training/cpu/bert-paddle/README.md.
CORPUS_ARGS = ("--seq-len", "64", "--vocab-size", "1024")


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("bert") / "corpus"
    result = subprocess.run([sys.executable, str(CASE.dir / "prepare_data.py"), "--output",
                             str(out), *CORPUS_ARGS], capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-3000:]
    assert f"bert/paddle reads {out}" in result.stdout
    return out


def run_launcher(data_dir: Path, out_dir: Path, config_file: str, nproc: int,
                 timeout: int) -> subprocess.CompletedProcess:
    """The launch contract on one node: chipperf's paddle command line."""
    ctx = CASE.context(data_dir, config_file, out_dir, nproc)
    env = CASE.env(NNODES="1", NODE_RANK="0", NPROC_PER_NODE=str(nproc), WORLD_SIZE=str(nproc))
    return subprocess.run(paddle_launcher.command(ctx), env=env, capture_output=True, text=True,
                          timeout=timeout)


def run_tiny(data_dir: Path, *sets: str, **env: str) -> subprocess.CompletedProcess:
    """One rank of the tiny size on ``data_dir``, no vendor config; ``sets``: more --set."""
    argv = ["--data_dir", str(data_dir), "--set", "model_size='tiny'"]
    return CASE.run(*argv, *(a for s in sets for a in ("--set", s)), env=CASE.env(**env))


@pytest.mark.integration
def test_two_ranks_converge_with_a_valid_finished(corpus: Path, tmp_path: Path) -> None:
    result = run_launcher(corpus, tmp_path, "config_xeonx1x2.py", 2, 900)
    logs = rank_logs(tmp_path)
    assert result.returncode == 0, result.stdout[-2000:] + "\n" + logs.get(0, "")[-4000:]
    events = perflog_events(logs[0])
    finished = check_converged(events)
    assert all(e.rank == 0 for e in events)
    assert init_end(events)["model_size"] == "tiny" and init_end(events)["device"] == "cpu"
    assert finished["world_size"] == 2 and finished["dtype"] == "fp32"
    assert finished["metric"]["name"] == "mlm_accuracy"
    assert "[PerfLog]" not in logs[1]  # rank 1 emits nothing


def test_missing_data_dir_names_the_layout(tmp_path: Path) -> None:
    result = CASE.run_config(tmp_path / "no")
    assert_case_error(result, f"data dir {tmp_path / 'no'} does not exist",
                      "bert/paddle/prepare_data.py", "vocab.txt, train/*.npy")


def test_malformed_dataset_lists_every_problem(tmp_path: Path) -> None:
    (tmp_path / "train").mkdir()
    np.save(tmp_path / "train" / "shard_00000.npy", np.zeros((4,), np.int32))
    assert_case_error(run_tiny(tmp_path), "vocab.txt is missing",
                      "expected a non-empty 2-D integer array",
                      f"{tmp_path / 'eval'} has no .npy shards")


def test_batch_that_does_not_divide_fails(corpus: Path, tmp_path: Path) -> None:
    result = run_tiny(corpus, "global_batch_size=33", PADDLE_TRAINER_ID="0",
                      PADDLE_TRAINERS_NUM="2", PADDLE_LOCAL_RANK="0", NPROC_PER_NODE="2")
    assert_case_error(result, "global_batch_size = 33 does not divide across 2 ranks")


def test_vocabulary_larger_than_the_model_is_reported(tmp_path: Path) -> None:
    specials = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    (tmp_path / "vocab.txt").write_text("\n".join(specials + [f"w{i}" for i in range(5000)]))
    for split in ("train", "eval"):
        (tmp_path / split).mkdir()
        np.save(tmp_path / split / "shard_00000.npy", np.full((64, 16), 7, np.uint16))
    assert_case_error(run_tiny(tmp_path), "has 5005 tokens but the model's vocab_size is 1024")


def test_vendor_config_may_not_set_the_target(tmp_path: Path) -> None:
    (tmp_path / "config_bad.py").write_text("target_mlm_accuracy = {'tiny': 0.01}\n")
    result = CASE.run_config(tmp_path, config_dir=tmp_path, config_file="config_bad.py")
    assert_case_error(result, f"{tmp_path / 'config_bad.py'}: sets 'target_mlm_accuracy'")


@pytest.mark.parametrize("vendor,device,missing", [
    ("ascend", "npu", "Paddle 3.3.1 sees 0 'npu' device(s)"),
    ("nvidia", "cuda", "sees 0 'gpu' device(s)"),
])
def test_a_device_this_machine_lacks_stops_the_case_instead_of_training_on_the_cpu(
        corpus: Path, tmp_path: Path, vendor: str, device: str, missing: str) -> None:
    result = run_tiny(corpus, CHIPPERF_VENDOR=vendor, CHIPPERF_DEVICE=device)
    assert_case_error(result, f"chipperf case error: vendor '{vendor}' names device '{device}'",
                      missing, "does not fall back to the CPU")
    assert "INIT_END" not in result.stdout
