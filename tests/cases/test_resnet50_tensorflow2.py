"""resnet50 / TensorFlow 2 on the host: 2 MultiWorkerMirroredStrategy workers started by
chipperf's tensorflow2 launcher (spawn + TF_CONFIG + rankexec) train on the digits folder to
the CI target; bad inputs fail before training with one clear line.

Needs tensorflow-cpu, scikit-learn and Pillow on the host (requirements-test.txt). The data
dir is made by the resnet50/pytorch case's prepare_digits.py, run as a script."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
CASE = REPO / "training" / "benchmarks" / "resnet50" / "tensorflow2"
PREPARE_DIGITS = REPO / "training" / "benchmarks" / "resnet50" / "pytorch" / "prepare_digits.py"
VENDOR_CONFIG_DIR = REPO / "training" / "cpu" / "resnet50-tensorflow2" / "config"
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from chipperf.launchers import tensorflow2 as tf_launcher  # noqa: E402
from chipperf.launchers.base import LaunchContext  # noqa: E402
from chipperf.perflog import finished_problems, parse_lines  # noqa: E402

CONTRACT = ("RANK", "LOCAL_RANK", "WORLD_SIZE", "LOCAL_WORLD_SIZE", "TF_CONFIG", "NNODES",
            "NODE_RANK", "NPROC_PER_NODE")


def free_port_block(count: int) -> int:
    """A base port with ``count`` free ports after it (probed, then released)."""
    for _ in range(50):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            base = s.getsockname()[1]
        if base + count < 65536 and all(_free(base + i) for i in range(count)):
            return base
    raise RuntimeError("no block of free ports")


def _free(port: int) -> bool:
    with socket.socket() as s:
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


@pytest.fixture(scope="module")
def digits(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("digits")
    subprocess.run([sys.executable, str(PREPARE_DIGITS), str(out)], check=True, timeout=120)
    return out


def case_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in CONTRACT}
    env["PYTHONPATH"] = f"{REPO}:{REPO / 'training' / 'benchmarks'}"
    env["CHIPPERF_VENDOR"] = "cpu"
    return {**env, **extra}


def run_launcher(data_dir: Path, out_dir: Path, config_file: str, nproc: int,
                 timeout: int) -> subprocess.CompletedProcess:
    """The launch contract on one node: chipperf's tensorflow2 command line."""
    ctx = LaunchContext(
        nnodes=1, node_rank=0, nproc_per_node=nproc, master_addr="127.0.0.1",
        master_port=free_port_block(nproc), node_addr="127.0.0.1", hosts=("127.0.0.1",),
        entry=str(CASE / "run_pretraining.py"),
        case_args=("--data_dir", str(data_dir), "--extern_config_dir", str(VENDOR_CONFIG_DIR),
                   "--extern_config_file", config_file, "--output_dir", str(out_dir)),
        output_dir=str(out_dir), python=sys.executable)
    return subprocess.run(tf_launcher.command(ctx), env=case_env(), capture_output=True,
                          text=True, timeout=timeout)


def run_single(argv: list[str], **env: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(CASE / "run_pretraining.py"), *argv],
                          env=case_env(**env), capture_output=True, text=True, timeout=300)


def rank_logs(out_dir: Path) -> dict[int, str]:
    return {int(p.name[4:-8]): p.read_text() for p in out_dir.glob("rank*.out.log")}


@pytest.mark.integration
def test_two_workers_converge_with_a_valid_finished(digits: Path, tmp_path: Path) -> None:
    result = run_launcher(digits, tmp_path, "config_xeonx1x2.py", 2, 600)
    logs = rank_logs(tmp_path)
    assert result.returncode == 0, result.stdout[-2000:] + "\n" + logs.get(0, "")[-4000:]
    events, problems = parse_lines(logs[0].splitlines())
    assert problems == []
    names = [e.name for e in events]
    assert names[:4] == ["INIT_START", "SUBMIT_INFO", "INIT_END", "TRAIN_START"]
    assert names[-2:] == ["TRAIN_END", "FINISHED"] and "EVALUATE" in names
    init_end = events[names.index("INIT_END")].value
    assert init_end["model_size"] == "tiny" and init_end["num_classes"] == 10
    finished = events[-1].value
    assert finished_problems(finished) == []
    assert finished["converged"] is True, finished
    assert finished["world_size"] == 2 and finished["dtype"] == "fp32"
    assert finished["metric"] == {"name": "top1", "value": finished["metric"]["value"],
                                  "target": 0.9, "higher_is_better": True}
    assert finished["work_done"] % 32 == 0 and finished["work_done"] >= 32 * 44
    assert finished["flops_per_unit"] > 0
    assert 0 < finished["pure_compute_time_s"] < finished["train_no_eval_time_s"] \
        <= finished["train_time_s"] < finished["e2e_time_s"]
    assert "[PerfLog]" not in logs[1]  # rank 1 emits nothing


def test_missing_data_dir_fails_with_the_layout(tmp_path: Path) -> None:
    result = run_single(["--data_dir", str(tmp_path / "no"), "--extern_config_dir",
                         str(VENDOR_CONFIG_DIR), "--extern_config_file", "config_xeonx1x1.py"])
    assert result.returncode == 2, result.stderr[-2000:]
    assert f"data dir {tmp_path / 'no'} does not exist" in result.stderr
    assert "<data_dir>/train/<class name>/<image>" in result.stderr
    assert "TRAIN_START" not in result.stdout and "Traceback" not in result.stderr


def test_undecodable_image_fails_before_training(tmp_path: Path) -> None:
    for split in ("train", "val"):
        for label in ("a", "b"):
            folder = tmp_path / split / label
            folder.mkdir(parents=True)
            for i in range(40):
                (folder / f"{i}.png").write_bytes(b"not a png")
    result = run_single(["--data_dir", str(tmp_path), "--extern_config_dir",
                         str(VENDOR_CONFIG_DIR), "--extern_config_file", "config_xeonx1x1.py"])
    assert result.returncode == 2, result.stderr[-2000:]
    assert "cannot be decoded as JPEG/PNG" in result.stderr
    assert "TRAIN_START" not in result.stdout


def test_batch_that_does_not_divide_fails(digits: Path, tmp_path: Path) -> None:
    (tmp_path / "config_odd.py").write_text("global_batch_size = 33\n")
    result = run_single(["--data_dir", str(digits), "--extern_config_dir", str(tmp_path),
                         "--extern_config_file", "config_odd.py"],
                        RANK="0", LOCAL_RANK="0", WORLD_SIZE="2", NPROC_PER_NODE="2")
    assert result.returncode == 2
    assert "global_batch_size = 33 does not divide across 2 ranks" in result.stderr


def test_vendor_config_may_not_set_the_target(tmp_path: Path) -> None:
    (tmp_path / "config_bad.py").write_text("target_accuracy = {'tiny': 0.1}\n")
    result = run_single(["--data_dir", str(tmp_path / "no"), "--extern_config_dir",
                         str(tmp_path), "--extern_config_file", "config_bad.py"])
    assert result.returncode == 2
    assert f"{tmp_path / 'config_bad.py'}: sets 'target_accuracy'" in result.stderr


def test_unknown_model_size_is_reported(tmp_path: Path) -> None:
    result = run_single(["--data_dir", str(tmp_path), "--set", "model_size='resnet18'"])
    assert result.returncode == 2
    assert "model_size 'resnet18' is unknown: use one of resnet50, tiny" in result.stderr
