"""Bad input and faults: each gets one clear message naming the host and the fix,
keeps what was measured, and leaves nothing behind on any host."""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from datetime import datetime, timedelta
from pathlib import Path

import docker
import pytest
from conftest import REPO, WORK_ROOT, chipperf, latest_run_dir, leftovers, write_configs

from chipperf.results.layout import read_status

pytestmark = pytest.mark.e2e

ONE_NODE = "resnet50:pytorch_2.13:xeon:1:1:1"
TWO_NODES = "resnet50:pytorch_2.13:xeon:2:1:1"


def configs(tmp_path, sim_cluster, cases, hosts=None, **kw):
    hosts = hosts or [h.address for h in sim_cluster.hosts[:2]]
    kw.setdefault("ssh_key", sim_cluster.ssh_key)
    kw.setdefault("known_hosts", sim_cluster.known_hosts)
    return write_configs(tmp_path, hosts, cases, **kw)


def run(tmp_path, cluster, test):
    return chipperf("run", "--cluster", str(cluster), "--test", str(test), cwd=tmp_path)


def test_bad_config_lists_every_problem_and_touches_nothing(tmp_path, sim_cluster):
    cluster, test = configs(tmp_path, sim_cluster, {
        "resnet50:pytorch_2.13:xeon:3:1": "/d",             # malformed key
        "resnet50:pytorch_2.13:xeon:5:1:1": "/d",           # more nodes than hosts
        "resnet50:pytorch_2.13:nochip:1:1:1": "/d",         # no vendor config for that chip
        "resnet50:mxnet_1.9:xeon:1:1:1": "/d",              # unknown framework
    }, extra_test="VENDOR = 'cpu'\n")
    result = run(tmp_path, cluster, test)
    assert result.returncode == 2, result
    for text in ("has 5 ':'-separated parts", "nnodes=5 but the cluster config lists 2",
                 "config_nochipx1x1.py", "has no launcher 'mxnet'"):
        assert text in result.output, result
    assert "Traceback" not in result.output
    assert result.run_dir is None


@pytest.mark.parametrize("fault, expect", [
    ("unreachable", "cannot connect"),
    ("port", "cannot connect"),
    ("auth", "authentication failed"),
    ("hostkey", "host key is not in"),
])
def test_connection_faults_name_host_and_fix(tmp_path, sim_cluster, digits_dir, fault, expect):
    kw: dict = {}
    hosts = [sim_cluster.hosts[0].address]
    if fault == "unreachable":
        hosts = ["10.231.0.99"]  # on the simulated bridge, but no such host
    elif fault == "port":
        kw["ssh_port"] = 2222
    elif fault == "auth":
        key = tmp_path / "other_key"
        subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(key)], check=True)
        kw["ssh_key"] = str(key)
    elif fault == "hostkey":
        empty = tmp_path / "known_hosts"
        empty.write_text("")
        kw["known_hosts"] = str(empty)
    cluster, test = configs(tmp_path, sim_cluster, {ONE_NODE: str(digits_dir)}, hosts=hosts, **kw)
    result = run(tmp_path, cluster, test)
    assert result.returncode == 1, result
    assert expect in result.output and hosts[0] in result.output, result
    assert "Traceback" not in result.output
    if fault == "hostkey":
        assert "ssh-keyscan" in result.output
    record = json.loads((result.run_dir / "run.json").read_text())
    assert record["status"] == "failed"
    assert expect in record["cases"]["resnet50-pytorch_2.13-xeon-1x1"]["reason"]


def test_missing_data_dir_on_a_host(tmp_path, sim_cluster):
    cluster, test = configs(tmp_path, sim_cluster, {TWO_NODES: "/nonexistent/imagenet"})
    result = run(tmp_path, cluster, test)
    assert result.returncode == 2, result                     # bad input, found before the run
    hosts = ", ".join(h.address for h in sim_cluster.hosts[:2])
    assert f"data dir /nonexistent/imagenet does not exist on {hosts}" in result.output
    assert "Traceback" not in result.output
    assert result.run_dir is None                             # nothing made


def test_a_run_id_in_use_on_a_host_is_refused_and_left_alone(tmp_path, sim_cluster, digits_dir):
    """Two masters starting in the same second get the same run id; the second must neither
    run nor tear down the first one's work dir (simulated by claiming the next ids first)."""
    h2 = sim_cluster.hosts[1].address
    now = datetime.now()
    taken = [Path(WORK_ROOT) / f"run{(now + timedelta(seconds=s)):%Y%m%d%H%M%S}" / h2
             for s in range(-1, 30)]
    for work in taken:
        work.mkdir(parents=True)
        (work / "other-run.txt").write_text("not yours")
    try:
        cluster, test = configs(tmp_path, sim_cluster, {TWO_NODES: str(digits_dir)})
        result = run(tmp_path, cluster, test)
        assert result.returncode == 1, result
        assert f"{h2}: work dir" in result.output and "exists already" in result.output, result
        assert all((w / "other-run.txt").read_text() == "not yours" for w in taken)
        h1_work = Path(WORK_ROOT) / result.run_dir.name / sim_cluster.hosts[0].address
        assert not h1_work.exists()  # what this run did claim, it removed
        assert [x for x in leftovers(sim_cluster, result.run_dir.name) if "container" in x] == []
    finally:   # only what it made: a run of the other xdist worker may have these run ids
        for work in taken:
            shutil.rmtree(work, ignore_errors=True)
            with contextlib.suppress(OSError):
                work.parent.rmdir()


def test_crashing_case_keeps_its_logs_and_cleans_up(tmp_path, sim_cluster):
    empty = tmp_path / "empty-dataset"
    empty.mkdir()
    cluster, test = configs(tmp_path, sim_cluster, {TWO_NODES: str(empty)})
    result = run(tmp_path, cluster, test)
    assert result.returncode == 1, result
    assert "failed" in result.output
    round_dir = result.run_dir / "resnet50-pytorch_2.13-xeon-2x1/round1"
    statuses = [read_status(node) for node in sorted(round_dir.iterdir())]
    assert len(statuses) == 2 and all(s in ("failed", "canceled") and r for s, r in statuses)
    assert "failed" in dict(statuses)
    # the node that failed first said what was wrong; the other may have been stopped before
    # its rank got that far
    logs = [p.read_text() for p in round_dir.glob("*/rank*.out.log")]
    assert any(str(empty) in text for text in logs), logs
    assert leftovers(sim_cluster, result.run_dir.name) == []


def test_round_deadline(tmp_path, sim_cluster, digits_dir):
    cluster, test = configs(tmp_path, sim_cluster, {TWO_NODES: str(digits_dir)},
                            extra_test="ROUND_TIMEOUT = 12\n")
    started = time.monotonic()
    result = run(tmp_path, cluster, test)
    assert result.returncode == 1, result
    assert time.monotonic() - started < 240
    record = json.loads((result.run_dir / "run.json").read_text())
    case = record["cases"]["resnet50-pytorch_2.13-xeon-2x1"]
    assert case["status"] == "timeout", case
    for node in (result.run_dir / "resnet50-pytorch_2.13-xeon-2x1/round1").iterdir():
        assert read_status(node)[0] == "timeout"
        assert (node / "launcher.log").is_file()  # what ran before the deadline is kept
    assert leftovers(sim_cluster, result.run_dir.name) == []


@pytest.fixture
def background_runs():
    """Starts `chipperf run` in the background; whatever is still running at the end is killed."""
    started: list[subprocess.Popen] = []

    def start(tmp_path, cluster, test) -> tuple[subprocess.Popen, Path]:
        log = tmp_path / "console.log"
        proc = subprocess.Popen([sys.executable, "-m", "chipperf.cli", "run", "--cluster",
                                 str(cluster), "--test", str(test)], cwd=tmp_path,
                                stdout=log.open("w"), stderr=subprocess.STDOUT,
                                env={**os.environ, "PYTHONPATH": str(REPO)})
        started.append(proc)
        return proc, log

    yield start
    for proc in started:
        if proc.poll() is None:
            proc.send_signal(signal.SIGINT)  # let it tear down what it started
            try:
                proc.wait(timeout=120)
            except subprocess.TimeoutExpired:
                proc.kill()


def _run_id(log: Path) -> str:
    found = re.search(r"run (run\d{14}):", log.read_text())
    assert found, log.read_text()[-2000:]
    return found.group(1)


def _wait_for(log: Path, text: str, timeout: float = 600) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if log.exists() and log.read_text().count(text) >= 2:
            return
        time.sleep(0.5)
    raise AssertionError(f"{text!r} never appeared twice:\n{log.read_text()[-4000:]}")


@pytest.mark.parametrize("sig,reason", [(signal.SIGINT, "interrupted (Ctrl-C)"),
                                        (signal.SIGTERM, "interrupted (SIGTERM)")])
def test_ctrl_c_or_sigterm_cancels_and_cleans_up(tmp_path, sim_cluster, digits_dir,
                                                 background_runs, sig, reason):
    cluster, test = configs(tmp_path, sim_cluster, {TWO_NODES: str(digits_dir)})
    proc, log = background_runs(tmp_path, cluster, test)
    _wait_for(log, ": started chipperf-")
    time.sleep(3)
    proc.send_signal(sig)
    assert proc.wait(timeout=120) == 130, log.read_text()[-4000:]
    run_dir = latest_run_dir(tmp_path / "result")
    record = json.loads((run_dir / "run.json").read_text())
    assert record["status"] == "canceled"
    case = record["cases"]["resnet50-pytorch_2.13-xeon-2x1"]
    assert case["status"] == "canceled" and case["reason"] == reason
    (round1,) = case["rounds"]  # the canceled round is recorded, its files are kept
    assert round1["status"] == "canceled" and reason in round1["reason"]
    for node in (run_dir / "resnet50-pytorch_2.13-xeon-2x1/round1").iterdir():
        assert read_status(node)[0] == "canceled"
    assert leftovers(sim_cluster, run_dir.name) == []


def test_vanished_rank_fails_the_round_fast(tmp_path, sim_cluster, digits_dir, background_runs):
    cluster, test = configs(tmp_path, sim_cluster, {TWO_NODES: str(digits_dir)})
    proc, log = background_runs(tmp_path, cluster, test)
    _wait_for(log, ": started chipperf-")
    time.sleep(3)
    h2 = sim_cluster.hosts[1]
    client = docker.DockerClient(base_url=h2.docker_host)
    (victim,) = client.containers.list(
        filters={"label": f"chipperf.run={_run_id(log)}", "name": "-n1$"})
    victim.kill()
    client.close()
    assert proc.wait(timeout=300) == 1, log.read_text()[-4000:]
    run_dir = latest_run_dir(tmp_path / "result")
    record = json.loads((run_dir / "run.json").read_text())
    reason = record["cases"]["resnet50-pytorch_2.13-xeon-2x1"]["reason"]
    assert reason.startswith(f"round 1: node 1 ({h2.address}): "), reason  # the lost node
    node1 = run_dir / "resnet50-pytorch_2.13-xeon-2x1/round1" / f"{h2.address}_noderank1"
    assert read_status(node1)[0] == "failed"
    assert leftovers(sim_cluster, run_dir.name) == []


def test_image_build_failure_fails_the_case_with_the_build_log(tmp_path, sim_cluster, digits_dir):
    import shutil

    training = tmp_path / "training"
    shutil.copytree(REPO / "training", training, ignore=shutil.ignore_patterns("__pycache__"))
    dockerfile = training / "cpu/docker_image/pytorch_2.13/Dockerfile"
    dockerfile.write_text(dockerfile.read_text() + "\nRUN echo 'no such package, on purpose' && false\n")
    cluster, test = configs(tmp_path, sim_cluster, {ONE_NODE: str(digits_dir)},
                            hosts=[sim_cluster.hosts[0].address])
    result = chipperf("run", "--cluster", str(cluster), "--test", str(test), "--training-dir",
                      str(training), cwd=tmp_path)
    assert result.returncode == 1, result
    assert "building chipperf/training-cpu-pytorch_2.13" in result.output and "failed" in result.output
    record = json.loads((result.run_dir / "run.json").read_text())
    reason = record["cases"]["resnet50-pytorch_2.13-xeon-1x1"]["reason"]
    assert reason.startswith("image: ") and "no such package, on purpose" in reason
    assert "Traceback" not in result.output


def test_host_without_a_docker_engine(tmp_path, sim_cluster, digits_dir):
    h3 = sim_cluster.hosts[2]
    pid = int(Path(f"/run/chipperf-sim/{h3.name}/docker.pid").read_text())
    os.kill(pid, signal.SIGTERM)
    try:
        for _ in range(100):
            if not Path(f"/proc/{pid}").exists():
                break
            time.sleep(0.2)
        cluster, test = configs(tmp_path, sim_cluster, {ONE_NODE: str(digits_dir)},
                                hosts=[h3.address])
        result = run(tmp_path, cluster, test)
        assert result.returncode == 1, result
        assert f"{h3.address}: no Docker engine answers over SSH" in result.output, result
        assert "start dockerd" in result.output
    finally:
        subprocess.run([sys.executable, str(REPO / "tests/simcluster/simcluster.py"), "up", "--only",
                        ",".join(h.name for h in sim_cluster.hosts)], check=True, capture_output=True)
