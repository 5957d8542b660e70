"""FlagPerf's in-container launch across two hosts: the vendor's container already runs on
each host, and chipperf runs the case inside it (IN_CONTAINER_LAUNCH with IN_CONTAINER_NAME).

The test plays the vendor engineer first: on each of the session's first two simulated hosts it
starts a container from the cpu training image (the one chipperf builds for pytorch_2.13,
shipped to the host if it lacks it) with ``docker run -d --network host`` and the data dir
mounted, and keeps it running. Then ``chipperf run`` SSHes to each host and starts the node's
torchrun and monitor inside that container (``docker exec``); the two nodes meet at the first
host's address. The result tree is collected from the containers into result/run<ts>/, and the
containers are left running as they were found. Run with ``CHIPPERF_SIM_HOSTS=h7,h8``.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any, Iterator

import docker
import pytest

from chipperf.results.layout import read_status
from chipperf.results.read.check import check
from tests.e2e.conftest import (
    REPO,
    WORK_ROOT,
    Background,
    chipperf,
    leftovers,
    write_configs,
)

pytestmark = pytest.mark.e2e

KEY = "aquila2_7B_container:in_container:xeon:2:1:1"    # FlagPerf's names: chipperf's aquila2_7b
CASE_DIR = "aquila2_7b-pytorch_2.13-xeon-2x1"
OVERRIDES = {"run_mode": "performance", "perf_warmup_steps": 1, "timed_steps": 3,
             "eval_samples": 8}
NAME = f"vendor-pytorch-{os.getpid()}"                 # the vendor engineer's container


@pytest.fixture(scope="module")
def text_dir(aquila2_text_dir: Path) -> Path:
    return aquila2_text_dir


@pytest.fixture(scope="module")
def vendor_image(sim_cluster) -> str:
    """The cpu training image as chipperf tags it, built here if missing and loaded into the
    first two hosts' engines if they lack it (hosts that ran a pytorch case hold it)."""
    from chipperf.config.model import ImageBuildConfig
    from chipperf.containers import images
    from chipperf.containers.pipconf import fill_from_master, master_pip_settings
    from chipperf.remote.host import LocalHost

    cfg = fill_from_master(ImageBuildConfig(), master_pip_settings()).config
    inputs = images.build_inputs(REPO / "training/cpu/docker_image/pytorch_2.13", cfg)
    wanted = images.image_tag("chipperf/training-cpu-pytorch_2.13", inputs)
    engines = {h.name: docker.DockerClient(base_url=h.docker_host) for h in sim_cluster.hosts[:2]}
    try:
        if not all(_has(e, wanted) for e in engines.values()):
            local = LocalHost().docker()
            tag = images.ensure_image(local, "chipperf/training-cpu-pytorch_2.13", inputs, cfg)
            for name, engine in engines.items():
                images.ship_image(local, engine, tag, name)
    finally:
        for engine in engines.values():
            engine.close()
    return wanted


def _has(engine: Any, tag: str) -> bool:
    try:
        engine.images.get(tag)
    except docker.errors.ImageNotFound:
        return False
    return True


@pytest.fixture
def vendor_containers(sim_cluster, vendor_image: str, text_dir: Path
                      ) -> Iterator[dict[str, tuple[Any, Any]]]:
    """host address -> (its engine, the factory that starts the vendor's container there);
    whatever the test started is removed after it."""
    engines = {h.address: docker.DockerClient(base_url=h.docker_host) for h in sim_cluster.hosts[:2]}
    started: list[Any] = []

    def start(engine: Any, name: str = NAME, network: str = "host", run: bool = True) -> Any:
        make = engine.containers.run if run else engine.containers.create
        options = {"detach": True} if run else {}
        container = make(vendor_image, ["sleep", "infinity"], name=name, network_mode=network,
                         volumes={str(text_dir): {"bind": str(text_dir), "mode": "ro"}},
                         **options)
        started.append(container)
        return container

    yield {address: (engine, start) for address, engine in engines.items()}
    for container in started:
        container.remove(force=True)
    for engine in engines.values():
        engine.close()


def _configs(tmp_path: Path, sim_cluster, text_dir: Path, name: str = NAME,
             overrides: dict[str, Any] = OVERRIDES) -> tuple[Path, Path]:
    hosts = [h.address for h in sim_cluster.hosts[:2]]
    return write_configs(tmp_path, hosts, {KEY: str(text_dir)}, ssh_key=sim_cluster.ssh_key,
                         known_hosts=sim_cluster.known_hosts, master_port=29563,
                         extra_test=f"IN_CONTAINER_LAUNCH = True\nIN_CONTAINER_NAME = {name!r}\n"
                                    f"OVERRIDES = {overrides!r}\n")


def test_case_runs_in_the_running_container_on_both_hosts(tmp_path, sim_cluster, text_dir,
                                                          vendor_containers) -> None:
    containers = {address: start(engine) for address, (engine, start) in vendor_containers.items()}
    for container in containers.values():
        container.reload()
    before = {a: (c.id, c.attrs["State"]["StartedAt"]) for a, c in containers.items()}
    cluster, test = _configs(tmp_path, sim_cluster, text_dir)
    result = chipperf("run", "--cluster", str(cluster), "--test", str(test), cwd=tmp_path,
                      timeout=900)
    assert result.returncode == 0 and result.run_dir is not None, result
    record = json.loads((result.run_dir / "run.json").read_text())
    assert record["status"] == "succeeded" and record["test"]["in_container_launch"] is True
    assert record["cases"][CASE_DIR]["image"] is None
    first = next(iter(containers))
    for rank, address in enumerate(containers):
        version = record["hosts"][address]["docker_version"]
        assert version.startswith(f"none: IN_CONTAINER_LAUNCH in container {NAME} "), version
        power = record["hosts"][address]["node_power"]      # this machine has no RAPL
        assert power["rapl"] is False and power["note"].startswith(
            f"no RAPL energy counter inside container '{NAME}' under /sys/class/powercap"), power
        assert f"[{address}] node power: {power['note']}" in result.output
        node = result.run_dir / CASE_DIR / "round1" / f"{address}_noderank{rank}"
        assert read_status(node) == ("succeeded", "")
        assert {p.name for p in node.iterdir()} >= {
            f"rank{rank}.out.log", "launcher.log", "status", "sys_info.json", "cpu_monitor.log",
            "mem_monitor.log", "pwr_monitor.log"}
    rank0 = result.run_dir / CASE_DIR / "round1" / f"{first}_noderank0" / "rank0.out.log"
    submit, finished = _event(rank0, "SUBMIT_INFO"), _event(rank0, "FINISHED")
    assert (submit["world_size"], submit["nnodes"]) == (2, 2)   # one rank in each container
    assert finished["work_done"] == 3 * 32 * 128          # 3 timed steps x batch 32 x seq 128
    assert check(result.run_dir).problems == []
    for address, container in containers.items():       # running as found, nothing of the run left
        container.reload()
        assert container.status == "running", (address, container.status)
        assert (container.id, container.attrs["State"]["StartedAt"]) == before[address]
        left = container.exec_run(["find", f"{WORK_ROOT}/{record['run_id']}",
                                   f"/tmp/chipperf-incontainer/{record['run_id']}"])
        assert b"No such file" in left.output and left.exit_code != 0, left.output
        assert _zombies(container) == [], address       # its PID 1 (sleep) reaps nothing
    assert leftovers(sim_cluster, record["run_id"]) == []


def test_container_not_running_on_one_host_is_named_before_anything_starts(
        tmp_path, sim_cluster, text_dir, vendor_containers) -> None:
    (first, (engine1, start1)), (second, (engine2, start2)) = vendor_containers.items()
    start1(engine1)
    start2(engine2, run=False)                           # made, never started
    cluster, test = _configs(tmp_path, sim_cluster, text_dir)
    plan = chipperf("plan", "--cluster", str(cluster), "--test", str(test), cwd=tmp_path)
    assert plan.returncode == 0 and f"the running container '{NAME}' on each host" in plan.output
    assert "power       read by the monitor inside the container" in plan.output
    result = chipperf("run", "--cluster", str(cluster), "--test", str(test), cwd=tmp_path,
                      timeout=120)
    assert result.returncode == 2 and result.run_dir is None, result   # nothing was started
    assert f"{second}: container '{NAME}' is created, not running: `docker start {NAME}` " \
           "there first" in result.output, result
    assert f"{first}: container" not in result.output, result


def test_container_missing_or_off_the_host_network_is_named(tmp_path, sim_cluster, text_dir,
                                                            vendor_containers) -> None:
    (first, (engine1, start1)), (second, (engine2, start2)) = vendor_containers.items()
    start1(engine1, network="bridge")
    cluster, test = _configs(tmp_path, sim_cluster, text_dir)
    result = chipperf("run", "--cluster", str(cluster), "--test", str(test), cwd=tmp_path,
                      timeout=120)
    assert result.returncode == 2 and result.run_dir is None, result
    assert f"{first}: container '{NAME}' uses network mode 'bridge': a multi-node case's ranks " \
           "meet at MASTER_ADDR" in result.output, result
    assert f"{second}: container '{NAME}' does not exist there" in result.output, result


def test_container_stopped_mid_round_fails_the_round_and_leaves_the_other(
        tmp_path, sim_cluster, text_dir, vendor_containers) -> None:
    """The vendor's container on the second host is stopped while the case runs: the round
    fails soon after, naming host and container (not at the round deadline), and the first
    host's container is left running, with nothing of the run in it."""
    containers = {address: start(engine) for address, (engine, start) in vendor_containers.items()}
    first, second = containers
    cluster, test = _configs(tmp_path, sim_cluster, text_dir,
                             overrides={**OVERRIDES, "timed_steps": 2000,
                                        "max_steps": 2100})   # the cpu config stops at 200
    run = Background(tmp_path, cluster, test)
    run.wait_for("2/2 node(s) running")
    stopped = time.monotonic()
    containers[second].stop(timeout=0)
    assert run.proc.wait(timeout=300) == 1, run.log.read_text()[-4000:]
    took = time.monotonic() - stopped
    console = run.log.read_text()
    assert f"{second}: container '{NAME}' stopped or was removed" in console, console[-4000:]
    assert took < 120, f"{took:.0f} s after the stop"          # the round deadline is 900 s
    (run_dir,) = (tmp_path / "result").glob("run*")
    record = json.loads((run_dir / "run.json").read_text())
    assert record["status"] == "failed", record["status"]
    node = run_dir / CASE_DIR / "round1" / f"{second}_noderank1"
    assert read_status(node)[0] == "failed"
    containers[first].reload()
    assert containers[first].status == "running"
    run_id = record["run_id"]
    left = containers[first].exec_run(["find", f"{WORK_ROOT}/{run_id}",
                                       f"/tmp/chipperf-incontainer/{run_id}"])
    assert b"No such file" in left.output and left.exit_code != 0, left.output
    assert _zombies(containers[first]) == []            # its processes were stopped, and reaped
    _clean_in_the_container_once_it_runs_again(tmp_path, cluster, containers[second], second,
                                               run_dir, console)


def _clean_in_the_container_once_it_runs_again(tmp_path: Path, cluster: Path, container: Any,
                                               address: str, run_dir: Path, console: str) -> None:
    """What the run left in the stopped container (its work dir, its processes' state) is
    named at the end with the command that removes it, which does so once it runs again."""
    run_id = run_dir.name
    assert f"[{address}] the run's processes in container '{NAME}' could not be removed" \
           in console and f"`chipperf clean --cluster CLUSTER --in-container {NAME}`" in console
    container.start()
    work, states = f"{WORK_ROOT}/{run_id}/{address}", f"/tmp/chipperf-incontainer/{run_id}"
    assert container.exec_run(["test", "-d", work]).exit_code == 0
    assert container.exec_run(["test", "-d", states]).exit_code == 0
    swept = chipperf("clean", "--cluster", str(cluster), "--in-container", NAME, cwd=tmp_path,
                     timeout=120)
    assert swept.returncode == 0, swept
    assert f"{address}: collected 1 node dir(s), removed 2 process(es) and 1 work dir(s) in " \
           f"container {NAME}" in swept.output, swept
    left = container.exec_run(["find", f"{WORK_ROOT}/{run_id}", states])
    assert b"No such file" in left.output and left.exit_code != 0, left.output
    assert _zombies(container) == []


def _zombies(container: Any) -> list[str]:
    """The container's processes in state Z (exited, never reaped), as ``pid comm``."""
    stats = container.exec_run(["sh", "-c", "cat /proc/[0-9]*/stat 2>/dev/null"]).output.decode()
    return [f"{line.split()[0]} {line.split()[1]}" for line in stats.splitlines()
            if line.rsplit(")", 1)[-1].split()[:1] == ["Z"]]


def _event(log: Path, name: str) -> dict:
    lines = [line for line in log.read_text().splitlines() if f'"event": "{name}"' in line]
    return json.loads(lines[-1].split("[PerfLog] ", 1)[1])["value"]
