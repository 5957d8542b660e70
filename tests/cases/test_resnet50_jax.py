"""resnet50 / JAX on the host: chipperf's jax launcher (spawn + rankexec) runs the cpu CI
config, which trains the tiny preset on the digits folder to the CI target (top-1 0.90) in one
jit-compiled XLA step; FINISHED is valid and INIT_END says what XLA compiled. Two processes
(config_xeonx1x2, jax.distributed with gloo collectives) train as one data-parallel job: their
losses are the one process's, to XLA's CPU rounding. A device the machine lacks stops the case
instead of training on the CPU.

Needs jax[cpu], flax, optax, scikit-learn and Pillow on the host (the test extra). The data dir
is made by the resnet50/pytorch case's prepare_digits.py, run as a script."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from caserun import Case, assert_case_error, check_converged, init_end, perflog_events, rank_logs

from chipperf.launchers import jax as jax_launcher
from chipperf_runtime.perflog import Event

CASE = Case("resnet50", "jax")


def launch(digits: Path, config: str, out: Path, nproc: int,
           *extra: str) -> dict[int, list[Event]]:
    """The cpu config under chipperf's jax launcher on this host: rank -> its PerfLog events."""
    ctx = CASE.context(digits, config, out, nproc)
    result = subprocess.run([*jax_launcher.command(ctx), *extra], env=CASE.env(),
                            capture_output=True, text=True, timeout=600)
    logs = rank_logs(out)
    assert result.returncode == 0, result.stdout[-2000:] + "\n" + logs.get(0, "")[-4000:]
    assert sorted(logs) == list(range(nproc))
    return {rank: perflog_events(log) for rank, log in logs.items()}


@pytest.fixture(scope="module")
def one_process(digits: Path, tmp_path_factory: pytest.TempPathFactory) -> list[Event]:
    """The 1x1 config to convergence, its loss logged at every step."""
    out = tmp_path_factory.mktemp("one_process")
    return launch(digits, "config_xeonx1x1.py", out, 1, "--set", "log_every_steps=1")[0]


def losses(events: list[Event]) -> dict[int, float]:
    return {e.value["step"]: e.value["loss"] for e in events if e.name == "STEP_END"}


def test_one_process_converges_with_a_valid_finished_and_the_xla_record(
        one_process: list[Event]) -> None:
    events = one_process
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


def test_two_processes_train_as_one_job_with_the_one_process_losses(
        digits: Path, tmp_path: Path, one_process: list[Event]) -> None:
    """x1x2: two ranks join through jax.distributed (gloo on CPU), one Mesh over both
    processes' devices, 16 rows each of the same global batch of 32. Their first three losses
    are the one process's to a relative 1e-4 (measured: 7.4e-6 at most): XLA sums in another
    order over two devices than over one, and the tiny preset amplifies that rounding from step
    4 on (0.4 % at step 4, 8 % at step 6 in one run; a probe of the same train step on random
    batches at a constant lr 0.1 stayed within 3e-7 over 6 steps, so the gradient all-reduce is
    exact and the later drift is the data's rounding, not a second learning rate)."""
    ranks = launch(digits, "config_xeonx1x2.py", tmp_path, 2, "--set", "max_steps=3",
                   "--set", "log_every_steps=1")
    start = init_end(ranks[0])
    assert {k: start["xla"][k] for k in ("backend", "devices", "processes")} == {
        "backend": "cpu", "devices": 2, "processes": 2}
    assert start["cpu_collectives"] == "gloo" and start["local_devices"] == 1
    finished = ranks[0][-1].value
    assert finished["world_size"] == 2 and finished["work_done"] == 3 * 32
    two, one = losses(ranks[0]), losses(one_process)
    assert sorted(two) == [1, 2, 3] and losses(ranks[1]) in ({}, two)
    for step, loss in two.items():
        assert loss == pytest.approx(one[step], rel=1e-4), (step, loss, one[step])


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
