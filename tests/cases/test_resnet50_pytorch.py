"""resnet50 / PyTorch on the host: 2 ranks under torchrun on the digits data converge.

Needs torch, scikit-learn and Pillow on the host (requirements-test.txt). The data dir is
prepared with the case's own prepare_digits.py; the vendor config is the cpu CI one.
"""

from __future__ import annotations

import importlib.util
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
CASE = REPO / "training" / "benchmarks" / "resnet50" / "pytorch"
VENDOR_CONFIG_DIR = REPO / "training" / "cpu" / "resnet50-pytorch" / "config"
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
def digits(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("digits")
    subprocess.run([sys.executable, str(CASE / "prepare_digits.py"), str(out)], check=True,
                   timeout=120)
    return out


def case_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("RANK", "WORLD_SIZE", "LOCAL_RANK")}
    env["PYTHONPATH"] = f"{REPO}:{REPO / 'training' / 'benchmarks'}"
    env["CHIPPERF_VENDOR"] = "cpu"
    return env


def run_case(data_dir: Path, out_dir: Path, config_dir: Path, config_file: str, nproc: int,
             timeout: int) -> subprocess.CompletedProcess:
    """The launch contract on one node: chipperf's torchrun command line (python -m
    torch.distributed.run ... rankexec --log OUT/rank{RANK}.out.log -- python -u entry ...)."""
    ctx = LaunchContext(
        nnodes=1, node_rank=0, nproc_per_node=nproc, master_addr="127.0.0.1",
        master_port=free_port(), node_addr="127.0.0.1", hosts=("127.0.0.1",),
        entry=str(CASE / "run_pretraining.py"),
        case_args=("--data_dir", str(data_dir), "--extern_config_dir", str(config_dir),
                   "--extern_config_file", config_file, "--output_dir", str(out_dir)),
        output_dir=str(out_dir), python=sys.executable)
    argv = pytorch_launcher.command(ctx)
    assert argv[1:3] == ["-m", "torch.distributed.run"]
    return subprocess.run(argv, env=case_env(), capture_output=True, text=True, timeout=timeout)


def rank_logs(out_dir: Path) -> dict[int, str]:
    return {int(p.name[4:-8]): p.read_text() for p in out_dir.glob("rank*.out.log")}


@pytest.mark.integration
def test_two_ranks_converge_with_a_valid_finished(digits: Path, tmp_path: Path) -> None:
    result = run_case(digits, tmp_path, VENDOR_CONFIG_DIR, "config_xeonx1x2.py", 2, 900)
    logs = rank_logs(tmp_path)
    assert result.returncode == 0, result.stderr[-4000:] + "\n" + logs.get(0, "")[-4000:]
    events, problems = parse_lines(logs[0].splitlines())
    assert problems == []
    names = [e.name for e in events]
    assert names[:4] == ["INIT_START", "SUBMIT_INFO", "INIT_END", "TRAIN_START"]
    assert names[-2:] == ["TRAIN_END", "FINISHED"] and "EVALUATE" in names
    finished = events[-1].value
    assert finished_problems(finished) == []
    assert finished["converged"] is True, finished
    assert finished["world_size"] == 2 and finished["dtype"] == "fp32"
    assert finished["metric"]["value"] >= finished["metric"]["target"]
    assert 0 < finished["pure_compute_time_s"] < finished["train_no_eval_time_s"] \
        <= finished["train_time_s"] < finished["e2e_time_s"]
    assert "[PerfLog]" not in logs[1]  # rank 1 emits nothing


def test_vendor_config_with_a_non_mutable_param_fails_before_training(
        tmp_path: Path) -> None:
    (tmp_path / "config_bad.py").write_text("global_batch_size = 32\nnum_classes = 7\n")
    argv = [sys.executable, str(CASE / "run_pretraining.py"), "--data_dir", str(tmp_path / "no"),
            "--extern_config_dir", str(tmp_path), "--extern_config_file", "config_bad.py"]
    result = subprocess.run(argv, env=case_env(), capture_output=True, text=True, timeout=120)
    assert result.returncode == 2
    assert f"{tmp_path / 'config_bad.py'}: sets 'num_classes'" in result.stderr
    assert "allowed: " in result.stderr and "global_batch_size" in result.stderr
    assert "TRAIN_START" not in result.stdout and "Traceback" not in result.stderr


def test_missing_data_dir_fails_with_the_layout(tmp_path: Path) -> None:
    argv = [sys.executable, str(CASE / "run_pretraining.py"), "--data_dir", str(tmp_path / "no"),
            "--extern_config_dir", str(VENDOR_CONFIG_DIR), "--extern_config_file",
            "config_xeonx1x1.py"]
    result = subprocess.run(argv, env=case_env(), capture_output=True, text=True, timeout=120)
    assert result.returncode == 2
    assert f"data dir {tmp_path / 'no'} does not exist" in result.stderr
    assert "<data_dir>/train/<class name>/<image>" in result.stderr


def test_batch_that_does_not_divide_fails(digits: Path, tmp_path: Path) -> None:
    (tmp_path / "config_odd.py").write_text("global_batch_size = 33\n")
    env = {**case_env(), "RANK": "0", "LOCAL_RANK": "0", "WORLD_SIZE": "2"}
    argv = [sys.executable, str(CASE / "run_pretraining.py"), "--data_dir", str(digits),
            "--extern_config_dir", str(tmp_path), "--extern_config_file", "config_odd.py"]
    result = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=120)
    assert result.returncode == 2
    assert "global_batch_size = 33 does not divide across 2 ranks" in result.stderr


def test_prepare_digits_writes_a_stratified_split(digits: Path) -> None:
    train = sorted(p.relative_to(digits) for p in (digits / "train").glob("*/*.png"))
    val = sorted(p.relative_to(digits) for p in (digits / "val").glob("*/*.png"))
    assert (len(train), len(val)) == (1438, 359)
    assert sorted(p.name for p in (digits / "val").iterdir()) == [str(d) for d in range(10)]
    assert not {p.name for p in train} & {p.name for p in val}  # no image in both splits
    again = subprocess.run([sys.executable, str(CASE / "prepare_digits.py"), str(digits)],
                           capture_output=True, text=True, timeout=120)
    assert again.returncode == 1 and "--force" in again.stderr


def test_image_folder_yields_normalised_tensors(digits: Path) -> None:
    if str(REPO / "training" / "benchmarks") not in sys.path:
        sys.path.insert(0, str(REPO / "training" / "benchmarks"))  # data.py imports driver
    name = "chipperf_case_resnet50_pytorch_data"
    spec = importlib.util.spec_from_file_location(name, CASE / "data.py")
    data = sys.modules[name] = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(data)
    train, val = data.read_splits(digits)
    assert train.classes == tuple(str(d) for d in range(10)) and len(val.samples) == 359
    for augment in ("resize", "random_resized_crop_flip", None):
        image, label = data.ImageFolder(train, 32, augment, val_crop_ratio=1.0)[0]
        assert tuple(image.shape) == (3, 32, 32) and label == 0
        assert image.dtype.is_floating_point and -3 < float(image.mean()) < 3
