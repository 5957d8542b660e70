"""resnet50 / JAX on the host: chipperf's jax launcher (spawn + rankexec) runs the cpu CI
config, which trains the tiny preset on the digits folder to the CI target (top-1 0.90) in one
jit-compiled XLA step; FINISHED is valid and INIT_END says what XLA compiled. A device the
machine lacks stops the case instead of training on the CPU.

Needs jax[cpu], flax, optax, scikit-learn and Pillow on the host (the test extra). The data dir
is made by the resnet50/pytorch case's prepare_digits.py, run as a script."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from caserun import Case, assert_case_error, check_converged, init_end, perflog_events, rank_logs

from chipperf.launchers import jax as jax_launcher

CASE = Case("resnet50", "jax")
PREPARE_DIGITS = Case("resnet50", "pytorch").dir / "prepare_digits.py"


@pytest.fixture(scope="module")
def digits(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("digits")
    subprocess.run([sys.executable, str(PREPARE_DIGITS), str(out)], check=True, timeout=120)
    return out


def test_one_process_converges_with_a_valid_finished_and_the_xla_record(digits: Path,
                                                                        tmp_path: Path) -> None:
    ctx = CASE.context(digits, "config_xeonx1x1.py", tmp_path, 1)
    result = subprocess.run(jax_launcher.command(ctx), env=CASE.env(), capture_output=True,
                            text=True, timeout=600)
    logs = rank_logs(tmp_path)
    assert result.returncode == 0, result.stdout[-2000:] + "\n" + logs.get(0, "")[-4000:]
    events = perflog_events(logs[0])
    finished = check_converged(events)               # finished_problems(FINISHED) == [] inside
    start = init_end(events)
    assert start["model_size"] == "tiny" and start["num_classes"] == 10
    xla = start["xla"]
    assert {k: xla[k] for k in ("compiler", "jit_compile", "backend", "device_kind", "devices",
                                "processes")} == {
        "compiler": "XLA", "jit_compile": True, "backend": "cpu", "device_kind": "cpu",
        "devices": 1, "processes": 1}
    assert xla["hlo_module"].startswith("jit_train_step") and xla["hlo_instructions"] > 100
    assert finished["execution"]["xla"] == xla and finished["dtype"] == "fp32"
    assert finished["metric"]["target"] == 0.9 and finished["world_size"] == 1
    preset = finished["preset"]                      # a tiny model, labelled with the real size
    assert preset["changes"]["model_size"] == ["tiny", "resnet50"]
    assert preset["params"] == start["parameters"] and preset["full_params"] == 25_557_032
    assert finished["work_done"] % 32 == 0 and finished["flops_per_unit"] > 0


@pytest.mark.parametrize("vendor,device,missing", [
    ("tpu", "tpu", "cannot initialise its 'tpu' backend here"),
    ("ascend", "npu", "JAX has no build for this device kind"),
])
def test_a_device_this_machine_lacks_stops_the_case_instead_of_training_on_the_cpu(
        digits: Path, vendor: str, device: str, missing: str) -> None:
    result = CASE.run_config(digits, env=CASE.env(CHIPPERF_VENDOR=vendor, CHIPPERF_DEVICE=device))
    assert_case_error(result, f"chipperf case error: vendor '{vendor}' names device '{device}'",
                      missing, "does not fall back to the CPU")
    assert "INIT_END" not in result.stdout


def test_bad_settings_are_reported_together_before_jax_loads(tmp_path: Path) -> None:
    result = CASE.run("--data_dir", str(tmp_path), "--set", "model_size='resnet18'",
                      "--set", "dtype='fp16'")
    assert_case_error(result, "model_size 'resnet18' is unknown: use one of resnet50, tiny",
                      "dtype 'fp16' is not supported: use one of fp32, bf16")
