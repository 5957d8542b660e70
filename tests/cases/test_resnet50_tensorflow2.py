"""resnet50 / TensorFlow 2 on the host: 2 MultiWorkerMirroredStrategy workers started by
chipperf's tensorflow2 launcher (spawn + TF_CONFIG + rankexec) train on the digits folder to
the CI target; bad inputs fail before training with one clear line.

Needs tensorflow-cpu, scikit-learn and Pillow on the host (requirements-test.txt). The data
dir is made by the resnet50/pytorch case's prepare_digits.py, run as a script."""

from __future__ import annotations

import socket
import subprocess
from pathlib import Path

import pytest
from caserun import Case, assert_case_error, check_converged, init_end, perflog_events, rank_logs

from chipperf.launchers import tensorflow2 as tf_launcher

CASE = Case("resnet50", "tensorflow2")


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


def run_launcher(data_dir: Path, out_dir: Path, config_file: str, nproc: int,
                 timeout: int) -> subprocess.CompletedProcess:
    """The launch contract on one node: chipperf's tensorflow2 command line."""
    ctx = CASE.context(data_dir, config_file, out_dir, nproc, master_port=free_port_block(nproc))
    return subprocess.run(tf_launcher.command(ctx), env=CASE.env(), capture_output=True,
                          text=True, timeout=timeout)


@pytest.mark.integration
def test_two_workers_converge_with_a_valid_finished(digits: Path, tmp_path: Path) -> None:
    result = run_launcher(digits, tmp_path, "config_xeonx1x2.py", 2, 600)
    logs = rank_logs(tmp_path)
    assert result.returncode == 0, result.stdout[-2000:] + "\n" + logs.get(0, "")[-4000:]
    events = perflog_events(logs[0])
    finished = check_converged(events)
    assert init_end(events)["model_size"] == "tiny" and init_end(events)["num_classes"] == 10
    assert finished["world_size"] == 2 and finished["dtype"] == "fp32"
    assert finished["metric"] == {"name": "top1", "value": finished["metric"]["value"],
                                  "target": 0.9, "higher_is_better": True}
    assert finished["work_done"] % 32 == 0 and finished["work_done"] >= 32 * 44
    assert finished["flops_per_unit"] > 0
    assert "[PerfLog]" not in logs[1]  # rank 1 emits nothing


def test_missing_data_dir_fails_with_the_layout(tmp_path: Path) -> None:
    result = CASE.run_config(tmp_path / "no")
    assert_case_error(result, f"data dir {tmp_path / 'no'} does not exist",
                      "<data_dir>/train/<class name>/<image>")


def test_undecodable_image_fails_before_training(tmp_path: Path) -> None:
    for split in ("train", "val"):
        for label in ("a", "b"):
            folder = tmp_path / split / label
            folder.mkdir(parents=True)
            for i in range(40):
                (folder / f"{i}.png").write_bytes(b"not a png")
    assert_case_error(CASE.run_config(tmp_path), "cannot be decoded as JPEG/PNG")


def test_batch_that_does_not_divide_fails(digits: Path, tmp_path: Path) -> None:
    (tmp_path / "config_odd.py").write_text("global_batch_size = 33\n")
    result = CASE.run_config(digits, config_dir=tmp_path, config_file="config_odd.py",
                             env=CASE.env(RANK="0", LOCAL_RANK="0", WORLD_SIZE="2",
                                          NPROC_PER_NODE="2"))
    assert_case_error(result, "global_batch_size = 33 does not divide across 2 ranks")


def test_xla_on_two_cpu_workers_is_refused_before_training(digits: Path, tmp_path: Path) -> None:
    # TensorFlow's XLA has no CPU collectives (the case README: measured with two workers).
    result = CASE.run_config(digits, "--set", "jit_compile=True",
                             env=CASE.env(RANK="0", LOCAL_RANK="0", WORLD_SIZE="2",
                                          NPROC_PER_NODE="2"))
    assert_case_error(result, "jit_compile = True on the CPU runs one worker only (WORLD_SIZE=2)")
    assert "INIT_END" not in result.stdout


def test_vendor_config_may_not_set_the_target(tmp_path: Path) -> None:
    (tmp_path / "config_bad.py").write_text("target_accuracy = {'tiny': 0.1}\n")
    result = CASE.run_config(tmp_path / "no", config_dir=tmp_path, config_file="config_bad.py")
    assert_case_error(result, f"{tmp_path / 'config_bad.py'}: sets 'target_accuracy'")


def test_unknown_model_size_is_reported(tmp_path: Path) -> None:
    result = CASE.run("--data_dir", str(tmp_path), "--set", "model_size='resnet18'")
    assert_case_error(result, "model_size 'resnet18' is unknown: use one of resnet50, tiny")


@pytest.mark.parametrize("vendor,device,missing", [
    ("ascend", "npu", "lists 0 NPU device(s)"),
    ("nvidia", "cuda", "lists 0 GPU device(s)"),
    ("tpu", "tpu", "cannot initialise a TPU system here"),
])
def test_a_device_this_machine_lacks_stops_the_case_instead_of_training_on_the_cpu(
        digits: Path, tmp_path: Path, vendor: str, device: str, missing: str) -> None:
    result = CASE.run_config(digits, env=CASE.env(CHIPPERF_VENDOR=vendor, CHIPPERF_DEVICE=device))
    assert_case_error(result, f"chipperf case error: vendor '{vendor}' names device '{device}'",
                      missing, "does not fall back to the CPU")
    assert "INIT_END" not in result.stdout
