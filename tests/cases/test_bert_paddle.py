"""bert / Paddle on the host: 2 ranks started by chipperf's paddle launcher
(paddle.distributed.launch, gloo on CPU, rankexec logs) train the CI model on the offline
corpus to its MLM-accuracy target; bad inputs fail before training with one clear line.

Needs paddlepaddle and numpy on the host (requirements-test.txt). The corpus is made by the
case's prepare_data.py from text already on the machine."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

REPO = Path(__file__).resolve().parents[2]
CASE = REPO / "training" / "benchmarks" / "bert" / "paddle"
VENDOR_CONFIG_DIR = REPO / "training" / "cpu" / "bert-paddle" / "config"
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from chipperf.launchers import paddle as paddle_launcher  # noqa: E402
from chipperf.launchers.base import LaunchContext  # noqa: E402
from chipperf.perflog import finished_problems, parse_lines  # noqa: E402

# The CI corpus: see training/cpu/bert-paddle/README.md.
CORPUS_ARGS = ("--seq-len", "64", "--vocab-size", "1024")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("bert") / "corpus"
    result = subprocess.run([sys.executable, str(CASE / "prepare_data.py"), "--output", str(out),
                             *CORPUS_ARGS], capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-3000:]
    assert f"bert/paddle reads {out}" in result.stdout
    return out


def case_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PADDLE_")
           and k not in ("RANK", "LOCAL_RANK", "WORLD_SIZE", "NPROC_PER_NODE", "NNODES")}
    env["PYTHONPATH"] = f"{REPO}:{REPO / 'training' / 'benchmarks'}"
    env["CHIPPERF_VENDOR"] = "cpu"
    return {**env, **extra}


def run_launcher(data_dir: Path, out_dir: Path, config_file: str, nproc: int,
                 timeout: int) -> subprocess.CompletedProcess:
    """The launch contract on one node: chipperf's paddle command line."""
    ctx = LaunchContext(
        nnodes=1, node_rank=0, nproc_per_node=nproc, master_addr="127.0.0.1",
        master_port=free_port(), node_addr="127.0.0.1", hosts=("127.0.0.1",),
        entry=str(CASE / "run_pretraining.py"),
        case_args=("--data_dir", str(data_dir), "--extern_config_dir", str(VENDOR_CONFIG_DIR),
                   "--extern_config_file", config_file, "--output_dir", str(out_dir)),
        output_dir=str(out_dir), python=sys.executable)
    env = case_env(NNODES="1", NODE_RANK="0", NPROC_PER_NODE=str(nproc), WORLD_SIZE=str(nproc))
    return subprocess.run(paddle_launcher.command(ctx), env=env, capture_output=True, text=True,
                          timeout=timeout)


def run_single(argv: list[str], **env: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(CASE / "run_pretraining.py"), *argv],
                          env=case_env(**env), capture_output=True, text=True, timeout=300)


def rank_logs(out_dir: Path) -> dict[int, str]:
    return {int(p.name[4:-8]): p.read_text() for p in out_dir.glob("rank*.out.log")}


@pytest.mark.integration
def test_two_ranks_converge_with_a_valid_finished(corpus: Path, tmp_path: Path) -> None:
    result = run_launcher(corpus, tmp_path, "config_xeonx1x2.py", 2, 900)
    logs = rank_logs(tmp_path)
    assert result.returncode == 0, result.stdout[-2000:] + "\n" + logs.get(0, "")[-4000:]
    events, problems = parse_lines(logs[0].splitlines())
    assert problems == []
    names = [e.name for e in events]
    assert names[:4] == ["INIT_START", "SUBMIT_INFO", "INIT_END", "TRAIN_START"]
    assert names[-2:] == ["TRAIN_END", "FINISHED"] and "EVALUATE" in names
    assert all(e.rank == 0 for e in events)
    init_end = events[names.index("INIT_END")].value
    assert init_end["model_size"] == "tiny" and init_end["device"] == "cpu"
    finished = events[-1].value
    assert finished_problems(finished) == []
    assert finished["converged"] is True, finished
    assert finished["world_size"] == 2 and finished["dtype"] == "fp32"
    assert finished["metric"]["name"] == "mlm_accuracy"
    assert finished["metric"]["value"] >= finished["metric"]["target"]
    assert 0 < finished["pure_compute_time_s"] < finished["train_no_eval_time_s"] \
        <= finished["train_time_s"] < finished["e2e_time_s"]
    assert "[PerfLog]" not in logs[1]  # rank 1 emits nothing


def test_missing_data_dir_names_the_layout(tmp_path: Path) -> None:
    result = run_single(["--data_dir", str(tmp_path / "no"), "--extern_config_dir",
                         str(VENDOR_CONFIG_DIR), "--extern_config_file", "config_xeonx1x1.py"])
    assert result.returncode == 2, result.stderr[-2000:]
    assert f"data dir {tmp_path / 'no'} does not exist" in result.stderr
    assert "prepare_data.py" in result.stderr and "vocab.txt, train/*.npy" in result.stderr
    assert "TRAIN_START" not in result.stdout and "Traceback" not in result.stderr


def test_malformed_dataset_lists_every_problem(tmp_path: Path) -> None:
    (tmp_path / "train").mkdir()
    np.save(tmp_path / "train" / "shard_00000.npy", np.zeros((4,), np.int32))
    result = run_single(["--data_dir", str(tmp_path), "--set", "model_size='tiny'"])
    assert result.returncode == 2
    for expected in ("vocab.txt is missing", "expected a non-empty 2-D integer array",
                     f"{tmp_path / 'eval'} has no .npy shards"):
        assert expected in result.stderr
    assert "TRAIN_START" not in result.stdout


def test_batch_that_does_not_divide_fails(corpus: Path, tmp_path: Path) -> None:
    result = run_single(["--data_dir", str(corpus), "--set", "model_size='tiny'",
                         "--set", "global_batch_size=33"],
                        PADDLE_TRAINER_ID="0", PADDLE_TRAINERS_NUM="2", PADDLE_LOCAL_RANK="0",
                        NPROC_PER_NODE="2")
    assert result.returncode == 2
    assert "global_batch_size = 33 does not divide across 2 ranks" in result.stderr


def test_vocabulary_larger_than_the_model_is_reported(tmp_path: Path) -> None:
    specials = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    (tmp_path / "vocab.txt").write_text("\n".join(specials + [f"w{i}" for i in range(5000)]))
    for split in ("train", "eval"):
        (tmp_path / split).mkdir()
        np.save(tmp_path / split / "shard_00000.npy", np.full((64, 16), 7, np.uint16))
    result = run_single(["--data_dir", str(tmp_path), "--set", "model_size='tiny'"])
    assert result.returncode == 2
    assert "has 5005 tokens but the model's vocab_size is 1024" in result.stderr


def test_vendor_config_may_not_set_the_target(tmp_path: Path) -> None:
    (tmp_path / "config_bad.py").write_text("target_mlm_accuracy = {'tiny': 0.01}\n")
    result = run_single(["--data_dir", str(tmp_path), "--extern_config_dir", str(tmp_path),
                         "--extern_config_file", "config_bad.py"])
    assert result.returncode == 2
    assert f"{tmp_path / 'config_bad.py'}: sets 'target_mlm_accuracy'" in result.stderr
