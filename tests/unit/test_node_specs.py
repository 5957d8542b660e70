"""The plan carries each node's two containers whole: what `chipperf plan` prints is what the
run starts, the sidecar has its own spec (the case's GPU requests and options are not in
it), and the `docker run` line starts the same container by hand."""

from __future__ import annotations

import shlex
from dataclasses import replace
from pathlib import Path

import pytest
from docker.models.containers import _create_container_args

from chipperf.commands.render_plan import render_plan
from chipperf.config.model import CaseEntry, CaseKey, ClusterConfig, TestConfig
from chipperf.containers.containerplan import IPMI, POWERCAP
from chipperf.containers.spec import docker_run_argv, run_kwargs
from chipperf.plan import check, make_plan
from chipperf.suites.catalogue import Catalogue
from chipperf_runtime.monitors.command import DEFAULT_INTERVAL_S, MODULE, MonitorCommand


@pytest.fixture
def catalogue(tmp_path: Path) -> Catalogue:
    root = tmp_path / "training"
    for rel in ("benchmarks/resnet50/pytorch/run_pretraining.py", "benchmarks/driver/__init__.py",
                "cpu/resnet50-pytorch/config/config_xeonx2x2.py",
                "cpu/docker_image/pytorch_2.13/Dockerfile",
                "nvidia/resnet50-pytorch/config/config_H100x2x2.py",
                "nvidia/docker_image/pytorch_2.13/Dockerfile"):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text("")
    return Catalogue.scan(root)


def plan_for(catalogue, vendor: str, chip: str, opt: str = ""):
    cluster = ClusterConfig(hosts=("10.0.0.1", "10.0.0.2"), master_port=29600, work_root="/w")
    test = TestConfig(vendor=vendor, cases=(CaseEntry(CaseKey.parse(
        f"resnet50:pytorch_2.13:{chip}:2:2:1"), "/data/img"),), container_opt=opt,
        shm_size="8g", monitor_interval_s=0.5)
    assert check(cluster, replace(test, result_root="/tmp"), catalogue) == []
    plan = make_plan(cluster, test, catalogue, "run1", Path("result"))
    return plan, cluster, test, plan.cases[0].rounds[0].nodes[1]


def test_the_case_container_is_planned_whole(catalogue):
    _, _, _, node = plan_for(catalogue, "cpu", "xeon", "--env FOO=1 -v /opt/x:/x:ro --shm-size=2g")
    spec = node.case_spec
    assert spec.name == node.container and spec.image == "chipperf/training-cpu-pytorch_2.13"
    assert spec.command == ("python3", "-m", "chipperf_runtime.launch.rankexec",
                            f"{node.output_dir}/launcher.log", *node.command)
    assert spec.env == {"FOO": "1", **node.env}
    assert [(m.source, m.target, m.mode) for m in spec.mounts] == [
        (node.work_dir, node.work_dir, "rw"), ("/data/img", "/data/img", "ro"), ("/opt/x", "/x", "ro")]
    assert spec.shm_size == "2g"          # the option is more specific than SHM_SIZE
    assert spec.run_id == "run1" and not spec.pid_host


def test_the_sidecar_has_its_own_spec_not_the_case_options(catalogue):
    _, _, _, node = plan_for(catalogue, "nvidia", "H100", "--privileged --cap-add SYS_ADMIN")
    case, monitor = node.case_spec, node.monitor_spec
    assert case.options["device_requests"][0]["Capabilities"] == [["gpu"]]
    assert case.options["privileged"] is True and case.options["ipc_mode"] == "host"
    # NVML needs the driver's utility capability only; none of the case's or user's options
    assert monitor.options == {"device_requests": [
        {"Driver": "", "Count": -1, "DeviceIDs": [], "Capabilities": [["utility"]],
         "Options": {}}]}
    assert monitor.command == ("python3", "-m", "chipperf_runtime.monitors", "--out", node.output_dir,
                               "--interval", "0.5", "--vendor", "nvidia")
    assert [(m.source, m.if_present) for m in monitor.mounts] == [
        (node.work_dir, False), (POWERCAP, True)]
    assert [(d.path, d.if_present) for d in monitor.devices] == [(IPMI, True)]
    assert monitor.pid_host and monitor.shm_size == "64m"
    assert "/data/img" not in {m.source for m in monitor.mounts}


def test_sensors_a_host_lacks_are_left_out(catalogue):
    _, _, _, node = plan_for(catalogue, "cpu", "xeon")
    full = node.monitor_spec.on_host({POWERCAP, IPMI})
    assert full.env["CHIPPERF_POWERCAP_ROOT"] == "/host/powercap"
    assert [d.path for d in full.devices] == [IPMI]
    bare = node.monitor_spec.on_host(set())
    assert [m.source for m in bare.mounts] == [node.work_dir]
    assert bare.devices == () and "CHIPPERF_POWERCAP_ROOT" not in bare.env
    assert node.monitor_spec.sensor_paths() == (POWERCAP, IPMI)


def test_the_docker_run_line_is_the_same_container(catalogue):
    """The by-hand line, parsed back with chipperf's own option parser where it can, asks
    the engine for what the SDK call asks."""
    _, _, _, node = plan_for(catalogue, "nvidia", "H100", "--env FOO=1")
    for spec in (node.case_spec.tagged("img:t"), node.monitor_spec.tagged("img:t")):
        argv = docker_run_argv(spec)
        assert argv[:2] == ["docker", "run"] and argv[-len(spec.command) - 1:] == [
            "img:t", *spec.command]
        words = " ".join(argv)
        for name, value in spec.env.items():
            assert f"--env {name}={value}" in words
        for m in spec.mounts:
            assert f"--volume {m.source}:{m.target}:{m.mode}" in words
        kwargs = run_kwargs(spec)
        engine = _create_container_args({"image": spec.image, "version": "1.41", **kwargs})
        assert engine["host_config"]["NetworkMode"] == "host"
        if "device_requests" in kwargs:
            caps = kwargs["device_requests"][0]["Capabilities"][0]
            gpus = argv[argv.index("--gpus") + 1]
            assert gpus == {"gpu": "all", "utility": "all,capabilities=utility"}[caps[0]]


def test_plan_prints_the_specs_it_runs(catalogue):
    plan, cluster, test, node = plan_for(catalogue, "cpu", "xeon", "--ipc=host")
    text = render_plan(plan, cluster, test)
    first = plan.cases[0].rounds[0].nodes
    for n in first:
        for spec in (n.case_spec, n.monitor_spec):
            assert f"by hand   {shlex.join(docker_run_argv(spec.tagged(spec.image + ':TAG')))}" \
                in text
    assert "options   --ipc host" in text
    assert f"mount     {POWERCAP} -> /host/powercap (ro, where the host has it)" in text


def test_the_sidecars_command_line_reads_back_as_it_was_written(catalogue):
    """The engine writes the sidecar's argv and the sidecar reads it with one definition
    (chipperf_runtime/monitors/command.py): what the plan asks is what the sidecar runs."""
    _, _, _, node = plan_for(catalogue, "nvidia", "H100", "")
    argv = node.monitor_spec.command
    assert argv[:3] == ("python3", "-m", MODULE)
    assert MonitorCommand.from_argv(argv[3:]) == MonitorCommand(
        out=node.output_dir, interval_s=0.5, vendor="nvidia")
    timed = MonitorCommand(out="/r", interval_s=2.0, vendor="cpu", duration_s=3.0)
    assert MonitorCommand.from_argv(timed.to_argv()[3:]) == timed
    assert MonitorCommand.from_argv(["--out", "/r"]).interval_s == DEFAULT_INTERVAL_S
