"""resnet50 / PyTorch through torch_xla (framework pytorch_xla_2.9) on XLA's CPU backend, in the
cpu image a run builds for that key (training/cpu/docker_image/pytorch_xla_2.9; .ci/run's
prebuild builds it in the background, and the test finds it by its build-input hash): chipperf's
pytorch launcher (torchrun) runs the cpu CI config in performance mode, 2 warm-up steps (the
two train-step graphs compile there) and 6 timed ones, with the launch environment the plan gives
the key on the cpu vendor (CHIPPERF_DEVICE=xla, PJRT_DEVICE=CPU). The loss goes down, INIT_END
and FINISHED carry what XLA compiled and ran, the timed steps compiled nothing new, and no op ran
outside XLA. (The evaluation's XLA graphs are not run here, to keep the test short: they ran with
no fallback in the case README's convergence-mode run.) In the same container, an op torch_xla
does not lower stops the loop with one message naming it (xla_fallback_probe.py). On this
host's torch (2.13, no torch_xla) the xla device is refused naming torch's version. Digits made
by resnet50's prepare_digits.py."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest
from caserun import BENCHMARKS, REPO, Case, assert_case_error, init_end, perflog_events, rank_logs

from chipperf.config.model import ImageBuildConfig
from chipperf.containers import images
from chipperf.containers.pipconf import fill_from_master, master_pip_settings
from chipperf.launchers import pytorch as pytorch_launcher
from chipperf.plan import device_env
from chipperf_runtime.perflog import Event, finished_problems

CASE = Case("resnet50", "pytorch")
FRAMEWORK = "pytorch_xla_2.9"
WARMUP, TIMED = 2, 6
STEPS = WARMUP + TIMED


@pytest.fixture(scope="module")
def container(local_docker: Any, digits: Path) -> Any:
    """The image's container, the repository and the data mounted at their own paths."""
    cfg = fill_from_master(ImageBuildConfig(), master_pip_settings()).config
    context = REPO / "training" / "cpu" / "docker_image" / FRAMEWORK
    tag = images.ensure_image(local_docker, f"chipperf/training-cpu-{FRAMEWORK}",
                              images.build_inputs(context, cfg), cfg)
    box = local_docker.containers.run(
        tag, ["sleep", "infinity"], detach=True, remove=True, working_dir="/tmp",
        volumes={str(REPO): {"bind": str(REPO), "mode": "ro"},
                 str(digits.parent): {"bind": str(digits.parent), "mode": "rw"}})
    yield box
    box.kill()


def run_in(container: Any, argv: list[str]) -> tuple[int, str]:
    env = {**device_env("cpu", FRAMEWORK), "PYTHONPATH": f"{REPO}:{BENCHMARKS}"}
    code, output = container.exec_run(argv, environment=env)
    return code, output.decode(errors="replace")


@pytest.fixture(scope="module")
def events(container: Any, digits: Path) -> list[Event]:
    out = digits.parent / "xla_run"
    out.mkdir()
    ctx = CASE.context(digits, "config_xeonx1x1.py", out, 1)
    ctx = dataclasses.replace(ctx, python="python3", case_args=(
        *ctx.case_args, "--set", "run_mode='performance'", "--set", f"perf_warmup_steps={WARMUP}",
        "--set", f"timed_steps={TIMED}", "--set", "log_every_steps=1"))
    code, output = run_in(container, pytorch_launcher.command(ctx))
    log = rank_logs(out).get(0, "")
    assert code == 0, output[-2000:] + "\n" + log[-4000:]
    return perflog_events(log)


def test_xla_steps_lower_the_loss_and_record_what_xla_did(events: list[Event]) -> None:
    start, finished = init_end(events), events[-1].value
    assert events[-1].name == "FINISHED" and finished_problems(finished) == []
    assert (start["device"], start["dist_backend"], start["plugin"]) == ("xla:0", "xla", "torch_xla")
    assert start["torch_version"].startswith("2.9.0")
    assert {k: start["xla"][k] for k in ("compiler", "runtime", "pjrt_device", "devices",
                                         "torch_xla_version", "compiles", "fallback_ops")} == {
        "compiler": "XLA", "runtime": "PJRT", "pjrt_device": "CPU", "devices": 1,
        "torch_xla_version": "2.9.0", "compiles": 0, "fallback_ops": {}}
    xla = finished["execution"]["xla"]
    # three graphs (PT_XLA_DEBUG_LEVEL=1 names them): the tensors made on the device before
    # training (no inputs, 53 outputs), materialised by TRAIN_START's sync; the first step's
    # (it creates SGD's momentum buffers) and the second's, which every later step reuses
    assert xla["compiles"] == 3 and xla["compile_time_s"] > 0, xla
    assert xla["executions"] >= STEPS and xla["fallback_ops"] == {}, xla
    assert finished["work_done"] == TIMED * 64 and finished["throughput"]["raw"] > 0
    losses = [e.value["loss"] for e in events if e.name == "STEP_END"]
    assert len(losses) == STEPS
    assert sum(losses[-3:]) / 3 < sum(losses[:3]) / 3 - 0.1, losses


def test_an_op_left_out_of_xla_stops_the_loop_naming_it(container: Any) -> None:
    code, output = run_in(container, ["python3", str(REPO / "tests/cases/xla_fallback_probe.py")])
    assert code == 2, output[-3000:]
    assert "chipperf case error: 1 op(s) ran outside XLA in training step 1, on the CPU in " \
           "eager PyTorch (torch_xla's metrics: aten::median (1 call))" in output, output[-3000:]
    assert "no fallback was seen" not in output and "Traceback" not in output


def test_the_xla_device_on_a_torch_without_torch_xla_is_refused_naming_torch(
        digits: Path) -> None:
    result = CASE.run_config(digits, env=CASE.env(**device_env("cpu", FRAMEWORK)))
    assert_case_error(result, "names device 'xla'", "torch_xla is not installed beside torch 2.13")
