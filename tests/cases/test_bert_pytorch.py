"""bert / PyTorch on the host: 2 ranks under torchrun reach the tiny size's MLM-accuracy target.

Needs torch and numpy on the host (requirements-test.txt). The data dir is made by the case's
own prepare_data.py from text already on the machine; the vendor config is the cpu CI one.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

REPO = Path(__file__).resolve().parents[2]
CASE = REPO / "training" / "benchmarks" / "bert" / "pytorch"
VENDOR_CONFIG_DIR = REPO / "training" / "cpu" / "bert-pytorch" / "config"
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from chipperf.launchers import pytorch as pytorch_launcher  # noqa: E402
from chipperf.launchers.base import LaunchContext  # noqa: E402
from chipperf.perflog import finished_problems, parse_lines  # noqa: E402


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("bert_ci")
    subprocess.run([sys.executable, str(CASE / "prepare_data.py"), "--output", str(out)],
                   check=True, timeout=300)
    return out


def case_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("RANK", "WORLD_SIZE", "LOCAL_RANK")}
    env["PYTHONPATH"] = f"{REPO}:{REPO / 'training' / 'benchmarks'}"
    env["CHIPPERF_VENDOR"] = "cpu"
    return {**env, **extra}


def run_entry(data_dir: Path, config_dir: Path, config_file: str, *extra: str,
              env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    argv = [sys.executable, str(CASE / "run_pretraining.py"), "--data_dir", str(data_dir),
            "--extern_config_dir", str(config_dir), "--extern_config_file", config_file, *extra]
    return subprocess.run(argv, env=env or case_env(), capture_output=True, text=True,
                          timeout=300)


def assert_case_error(result: subprocess.CompletedProcess, *phrases: str) -> None:
    assert result.returncode == 2, result.stderr[-3000:]
    for phrase in phrases:
        assert phrase in result.stderr, result.stderr[-3000:]
    assert "TRAIN_START" not in result.stdout and "Traceback" not in result.stderr


def test_prepared_corpus_has_the_documented_layout(corpus: Path) -> None:
    vocab = (corpus / "vocab.txt").read_text().splitlines()
    assert len(vocab) == 1024 and vocab[:5] == ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    train = np.load(corpus / "train" / "shard_00000.npy")
    assert train.dtype == np.uint16 and train.ndim == 2 and train.shape[1] == 64
    assert (train[:, 0] == 2).all() and ((train == 3).sum(axis=1) == 2).all()
    assert len(train) > 5000 and len(np.load(corpus / "eval" / "shard_00000.npy")) > 500


@pytest.mark.integration
def test_two_ranks_reach_the_mlm_accuracy_target(corpus: Path, tmp_path: Path) -> None:
    ctx = LaunchContext(
        nnodes=1, node_rank=0, nproc_per_node=2, master_addr="127.0.0.1",
        master_port=free_port(), node_addr="127.0.0.1", hosts=("127.0.0.1",),
        entry=str(CASE / "run_pretraining.py"),
        case_args=("--data_dir", str(corpus), "--extern_config_dir", str(VENDOR_CONFIG_DIR),
                   "--extern_config_file", "config_xeonx1x2.py", "--output_dir", str(tmp_path)),
        output_dir=str(tmp_path), python=sys.executable)
    result = subprocess.run(pytorch_launcher.command(ctx), env=case_env(), capture_output=True,
                            text=True, timeout=900)
    logs = {int(p.name[4:-8]): p.read_text() for p in tmp_path.glob("rank*.out.log")}
    assert result.returncode == 0, result.stderr[-4000:] + "\n" + logs.get(0, "")[-4000:]
    events, problems = parse_lines(logs[0].splitlines())
    assert problems == []
    names = [e.name for e in events]
    assert names[:4] == ["INIT_START", "SUBMIT_INFO", "INIT_END", "TRAIN_START"]
    assert names[-2:] == ["TRAIN_END", "FINISHED"] and "EVALUATE" in names
    init_end = events[names.index("INIT_END")].value
    assert init_end["parameters"] == 562_304 and init_end["seq_len"] == 64
    finished = events[-1].value
    assert finished_problems(finished) == []
    assert finished["converged"] is True, finished
    assert finished["metric"]["name"] == "mlm_accuracy"
    assert finished["metric"]["value"] >= finished["metric"]["target"] == 0.12
    assert finished["world_size"] == 2 and finished["work_unit"] == "samples"
    assert finished["work_done"] % 32 == 0 and finished["work_done"] > 0
    assert finished["flops_per_unit"] == 6 * 540_672 * 64 + 12 * 2 * 128 * 64**2
    assert 0 < finished["pure_compute_time_s"] < finished["train_no_eval_time_s"] \
        <= finished["train_time_s"] < finished["e2e_time_s"]
    assert "[PerfLog]" not in logs[1]


def test_missing_data_dir_fails_with_how_to_make_one(tmp_path: Path) -> None:
    result = run_entry(tmp_path / "nope", VENDOR_CONFIG_DIR, "config_xeonx1x1.py")
    assert_case_error(result, f"data dir {tmp_path / 'nope'} does not exist",
                      "prepare_data.py --output")


def test_malformed_dataset_lists_every_problem(corpus: Path, tmp_path: Path) -> None:
    (tmp_path / "train").mkdir()
    np.save(tmp_path / "train" / "shard_00000.npy", np.zeros(10, np.uint16))
    result = run_entry(tmp_path, VENDOR_CONFIG_DIR, "config_xeonx1x1.py")
    assert_case_error(result, "vocab.txt is missing", "expected a non-empty 2-D integer array",
                      f"{tmp_path / 'eval'} has no .npy shards", "layout: vocab.txt")


def test_batch_that_does_not_divide_across_ranks_fails(corpus: Path) -> None:
    env = case_env(RANK="0", LOCAL_RANK="0", WORLD_SIZE="3")
    result = run_entry(corpus, VENDOR_CONFIG_DIR, "config_xeonx1x1.py", env=env)
    assert_case_error(result, "global_batch_size = 32 does not divide across 3 ranks")


def test_vendor_config_may_not_change_the_target(corpus: Path, tmp_path: Path) -> None:
    (tmp_path / "config_bad.py").write_text(
        'model_size = "tiny"\ntarget_mlm_accuracy = {"tiny": 0.01}\n')
    result = run_entry(corpus, tmp_path, "config_bad.py")
    assert_case_error(result, "sets 'target_mlm_accuracy', which a vendor config may not change")


def test_unknown_model_size_fails(corpus: Path) -> None:
    result = run_entry(corpus, VENDOR_CONFIG_DIR, "config_xeonx1x1.py", "--set",
                       "model_size=huge")
    assert_case_error(result, "model_size 'huge' is unknown: use one of large, tiny")
