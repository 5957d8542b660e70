"""resnet50 / PyTorch on the host: data, bad input, devices, performance mode, synthetic and
predecoded input. Two ranks converging on the digits: tests/e2e/test_training_e2e.py.

Needs torch, scikit-learn and Pillow on the host (requirements-test.txt). The data dir is
prepared with the case's own prepare_digits.py; the vendor config is the cpu CI one.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from caserun import Case, assert_case_error, perflog_events

from chipperf.launchers import pytorch as pytorch_launcher

CASE = Case("resnet50", "pytorch")


def run_case(data_dir: Path, out_dir: Path, config_file: str, nproc: int,
             timeout: int) -> subprocess.CompletedProcess:
    """The launch contract on one node: chipperf's torchrun command line (python -m
    torch.distributed.run ... rankexec --log OUT/rank{RANK}.out.log -- python -u entry ...)."""
    argv = pytorch_launcher.command(CASE.context(data_dir, config_file, out_dir, nproc))
    assert argv[argv.index("torch.distributed.run") - 1] in ("-m", "chipperf_runtime.launch.quickexit")
    return subprocess.run(argv, env=CASE.env(), capture_output=True, text=True, timeout=timeout)


def test_vendor_config_with_a_non_mutable_param_fails_before_training(
        tmp_path: Path) -> None:
    (tmp_path / "config_bad.py").write_text("global_batch_size = 32\nnum_classes = 7\n")
    result = CASE.run_config(tmp_path / "no", config_dir=tmp_path, config_file="config_bad.py")
    assert_case_error(result, f"{tmp_path / 'config_bad.py'}: sets 'num_classes'", "allowed: ",
                      "global_batch_size")


def test_missing_data_dir_fails_with_the_layout(tmp_path: Path) -> None:
    result = CASE.run_config(tmp_path / "no")
    assert_case_error(result, f"data dir {tmp_path / 'no'} does not exist",
                      "<data_dir>/train/<class name>/<image>")


def test_batch_that_does_not_divide_fails(digits: Path, tmp_path: Path) -> None:
    (tmp_path / "config_odd.py").write_text("global_batch_size = 33\n")
    result = CASE.run_config(digits, config_dir=tmp_path, config_file="config_odd.py",
                             env=CASE.env(RANK="0", LOCAL_RANK="0", WORLD_SIZE="2"))
    assert_case_error(result, "global_batch_size = 33 does not divide across 2 ranks")


def test_prepare_digits_writes_a_stratified_split(digits: Path) -> None:
    train = sorted(p.relative_to(digits) for p in (digits / "train").glob("*/*.png"))
    val = sorted(p.relative_to(digits) for p in (digits / "val").glob("*/*.png"))
    assert (len(train), len(val)) == (1438, 359)
    assert sorted(p.name for p in (digits / "val").iterdir()) == [str(d) for d in range(10)]
    assert not {p.name for p in train} & {p.name for p in val}  # no image in both splits
    again = subprocess.run([sys.executable, str(CASE.dir / "prepare_digits.py"), str(digits)],
                           capture_output=True, text=True, timeout=120)
    assert again.returncode == 1 and "--force" in again.stderr


def test_image_folder_yields_normalised_tensors(digits: Path) -> None:
    from chipperf_runtime.training.imagecls import (
        data,  # the shared image folders (caserun puts benchmarks/ on sys.path)
    )
    train, val = data.read_splits(digits)
    assert train.classes == tuple(str(d) for d in range(10)) and len(val.samples) == 359
    for augment in ("resize", "random_resized_crop_flip", None):
        image, label = data.ImageFolder(train, 32, augment, val_crop_ratio=1.0)[0]
        assert tuple(image.shape) == (3, 32, 32) and label == 0
        assert image.dtype.is_floating_point and -3 < float(image.mean()) < 3


@pytest.mark.parametrize("vendor,device,missing", [
    ("ascend", "npu", "its PyTorch plug-in 'torch_npu' does not import"),
    ("nvidia", "cuda", "torch.cuda.is_available() is False"),
])
def test_a_device_this_machine_lacks_stops_the_case_instead_of_training_on_the_cpu(
        digits: Path, tmp_path: Path, vendor: str, device: str, missing: str) -> None:
    result = CASE.run_config(digits, env=CASE.env(CHIPPERF_VENDOR=vendor, CHIPPERF_DEVICE=device))
    assert_case_error(result, f"chipperf case error: vendor '{vendor}' names device '{device}'",
                      missing, "does not fall back to the CPU")
    assert "INIT_END" not in result.stdout


def test_the_round_reason_leads_with_the_device_error_the_rank_printed(
        digits: Path, tmp_path: Path) -> None:
    """What the engine does with that rank: its log (as rankexec writes it) makes the failed
    node's reason, and so the round's, lead with the device layer's message."""
    from chipperf.containers.containerplan import NodeContainers
    from chipperf.containers.spec import ContainerSpec
    from chipperf.plan import NodePlan
    from chipperf.run import rounds

    result = CASE.run_config(digits, env=CASE.env(CHIPPERF_VENDOR="ascend",
                                                   CHIPPERF_DEVICE="npu"))
    node_dir = tmp_path / "node"
    node_dir.mkdir()
    (node_dir / "rank0.out.log").write_text(result.stdout + result.stderr)
    spec = ContainerSpec("case", "img", (), {}, (), "run1")
    node = NodePlan("10.0.0.1", 0, "/w", "case", "monitor", "r/round1/h_noderank0", "/w/out",
                    {}, (), NodeContainers(spec, spec))
    state = rounds.NodeState(node, status="failed", reason="rank 0 exited with status 2")
    rounds.name_case_error(state, node_dir)
    assert state.reason.startswith("rank0.out.log: vendor 'ascend' names device 'npu' (Huawei "
                                   "Ascend NPUs (torch_npu)), but its PyTorch plug-in 'torch_npu' "
                                   "does not import")
    assert state.reason.endswith("(rank 0 exited with status 2)")


def test_performance_mode_times_its_steps_without_evaluating(digits: Path, tmp_path: Path) -> None:
    """One rank, 2 warm-up + 3 timed steps: FINISHED from the timed window, no EVALUATE."""
    result = CASE.run_config(digits, "--output_dir", str(tmp_path), "--set",
                             "run_mode=performance", "--set", "perf_warmup_steps=2", "--set",
                             "timed_steps=3", "--set", "num_workers=0")
    assert result.returncode == 0, result.stderr[-4000:]
    events = perflog_events(result.stdout)
    names = [e.name for e in events]
    assert "EVALUATE" not in names and names[-2:] == ["TRAIN_END", "FINISHED"]
    finished = events[-1].value
    assert finished["run_mode"]["mode"] == "performance"
    assert (finished["run_mode"]["timed_first_step"], finished["run_mode"]["timed_last_step"]) \
        == (3, 5)
    assert finished["work_done"] == 3 * finished["run_mode"]["whole_run"]["work_done"] // 5
    assert finished["converged"] is False and finished["throughput"]["raw"] > 0


def test_performance_mode_with_no_timed_steps_fails_before_training(digits: Path) -> None:
    result = CASE.run_config(digits, "--set", "run_mode=performance", "--set", "timed_steps=0")
    assert_case_error(result, "timed_steps = 0: nothing would be timed")


def test_synthetic_input_needs_no_data_and_is_labelled(tmp_path: Path) -> None:
    """data_mode = synthetic: one device-resident random batch, no data dir read at all."""
    result = CASE.run_config(tmp_path / "no-data", "--output_dir", str(tmp_path), "--set",
                             "data_mode=synthetic", "--set", "run_mode=performance", "--set",
                             "perf_warmup_steps=1", "--set", "timed_steps=2")
    assert result.returncode == 0, result.stderr[-4000:]
    events = perflog_events(result.stdout)
    finished = events[-1].value
    assert finished["data_mode"] == "synthetic" and finished["run_mode"]["timed_steps"] == 2
    init = next(e.value for e in events if e.name == "INIT_END")
    assert (init["classes"], init["train_images"]) == (1000, 0)
    assert finished["work_done"] == 2 * 64          # the cpu config's global batch


def test_synthetic_input_in_convergence_mode_is_refused(tmp_path: Path) -> None:
    result = CASE.run_config(tmp_path / "no-data", "--set", "data_mode=synthetic")
    assert_case_error(result, "data_mode = 'synthetic' trains on random batches toward no "
                      "target: set run_mode = 'performance'")


def test_predecoded_input_trains_and_is_recorded(digits: Path, tmp_path: Path) -> None:
    """data_mode = predecoded: the digits decoded once by the store's own command, then one
    rank trains from the uint8 arrays (2 warm-up + 3 timed steps). That the store holds what
    the image folders give, batch by batch with their labels, is tests/runtime/
    test_predecoded.py's, and two ranks converging on the digits tests/e2e/test_training_e2e.py's:
    what is left here is the case reading the store through its own data_mode."""
    data = tmp_path / "digits"
    shutil.copytree(digits, data)
    made = subprocess.run([sys.executable, "-m", "chipperf_runtime.training.imagecls.predecoded",
                           str(data), "--image-size", "32", "--train-augment", "resize",
                           "--val-crop-ratio", "1.0", "--workers", "2"],
                          env=CASE.env(), capture_output=True, text=True, timeout=120)
    assert made.returncode == 0, made.stderr
    result = CASE.run_config(data, "--set", "data_mode=predecoded", "--set",
                             "run_mode=performance", "--set", "perf_warmup_steps=2", "--set",
                             "timed_steps=3", timeout=600)
    assert result.returncode == 0, result.stderr[-4000:]
    events = perflog_events(result.stdout)
    init = next(e.value for e in events if e.name == "INIT_END")
    assert (init["data_mode"], init["train_images"], init["val_images"]) == ("predecoded", 1438, 359)
    finished = events[-1].value
    assert events[-1].name == "FINISHED" and finished["data_mode"] == "predecoded"
    assert finished["run_mode"]["timed_steps"] == 3 and finished["throughput"]["raw"] > 0
    assert finished["work_done"] == 3 * 64          # the cpu config's global batch


def test_predecoded_input_without_its_store_names_the_command(digits: Path) -> None:
    result = CASE.run_config(digits, "--set", "data_mode=predecoded")
    assert_case_error(result, f"data_mode = 'predecoded' reads {digits / 'predecoded' / '32'}",
                      "python -m chipperf_runtime.training.imagecls.predecoded")
