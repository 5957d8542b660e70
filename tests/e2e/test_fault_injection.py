"""Faults injected into the simulated cluster mid-run. Each test asserts the run's exit,
status and reason, what was kept, and that nothing is left on any host once the next
chipperf command has reached it; each leaves the cluster healthy (`simcluster.py up`)."""

from __future__ import annotations

import contextlib
import glob
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import REPO, WORK_ROOT, chipperf, latest_run_dir, leftovers, write_configs

from chipperf.results.layout import read_status

pytestmark = pytest.mark.e2e

SIMCLUSTER = REPO / "tests/simcluster/simcluster.py"
TWO_ROUNDS = "resnet50:pytorch_2.13:xeon:2:1:2"
CASE_DIR = "resnet50-pytorch_2.13-xeon-2x1"


def configs(tmp_path, sim_cluster, cases, **kw):
    hosts = [h.address for h in sim_cluster.hosts[:2]]
    return write_configs(tmp_path, hosts, cases, ssh_key=sim_cluster.ssh_key,
                         known_hosts=sim_cluster.known_hosts, **kw)


def repair(sim_cluster) -> None:
    """Rebuild whatever is broken on the session's hosts (only those: CHIPPERF_SIM_HOSTS
    gives other sessions the rest, and `up --hosts 3` would remove hosts above h3)."""
    names = ",".join(h.name for h in sim_cluster.hosts)
    subprocess.run([sys.executable, str(SIMCLUSTER), "up", "--only", names], check=True,
                   capture_output=True, timeout=600, stdin=subprocess.DEVNULL)


@pytest.fixture
def healthy_after(sim_cluster):
    """Whatever a test broke is repaired afterwards, pass or fail."""
    yield
    repair(sim_cluster)


def netns_pids(name: str) -> list[int]:
    out = subprocess.run(["ip", "netns", "pids", f"chipperf-{name}"], capture_output=True,
                         text=True, check=False).stdout
    return [int(p) for p in out.split()]


def kill_in_host(name: str, *programs: str) -> list[int]:
    """SIGKILL every process of these names in a simulated host's namespace."""
    killed = []
    for pid in netns_pids(name):
        with contextlib.suppress(OSError):
            if Path(f"/proc/{pid}/comm").read_text().strip() in programs:
                os.kill(pid, signal.SIGKILL)
                killed.append(pid)
    return killed


def record_of(run_dir: Path) -> dict:
    return json.loads((run_dir / "run.json").read_text())


def test_host_lost_mid_round_then_returns(tmp_path, sim_cluster, digits_dir, background,
                                          healthy_after):
    """h2's sshd and dockerd die in round 1 (containerd and its containers live on): the run
    ends naming h2, does not start round 2 on it, keeps round 1's files on h2; once h2 is
    back, `chipperf collect` brings them home (late) and leaves nothing behind."""
    h2 = sim_cluster.hosts[1]
    cluster, test = configs(tmp_path, sim_cluster, {TWO_ROUNDS: str(digits_dir)})
    run = background(tmp_path, cluster, test)
    run.wait_for(": started chipperf-", 2)
    time.sleep(3)
    assert kill_in_host(h2.name, "sshd", "dockerd")
    assert run.proc.wait(timeout=300) == 1, run.log.read_text()[-4000:]
    print(run.log.read_text()[-6000:])
    run_dir = latest_run_dir(tmp_path / "result")
    record = record_of(run_dir)
    case = record["cases"][CASE_DIR]
    assert record["status"] == "failed" and case["status"] == "failed", case
    assert case["reason"].startswith(f"round 1: node 1 ({h2.address}): "), case["reason"]
    assert "lost contact with the host or its Docker engine" in case["reason"]
    assert [r["number"] for r in case["rounds"]] == [1]          # round 2 not started on h2
    assert case["skipped_rounds"] == [2] and h2.address in case["skipped_because"]
    assert case["rounds"][0]["lost_hosts"] == [h2.address]
    node1 = f"{CASE_DIR}/round1/{h2.address}_noderank1"
    assert case["rounds"][0]["kept_on_hosts"][f"{h2.address}_noderank1"].startswith(h2.address)
    assert read_status(run_dir / node1)[0] == "failed"
    assert "`chipperf collect" in run.log.read_text()

    repair(sim_cluster)                                          # h2 comes back
    collected = chipperf("collect", str(run_dir), cwd=tmp_path)
    assert collected.returncode == 0, collected
    assert f"collected {run_dir.name}/{node1}" in collected.output
    assert (run_dir / node1 / "launcher.log").is_file()          # its files came home
    assert record_of(run_dir)["late"][node1]["host"] == h2.address
    assert leftovers(sim_cluster, run_dir.name) == []



def test_docker_engine_restarted_mid_round(tmp_path, sim_cluster, digits_dir, background,
                                           healthy_after):
    """h2's dockerd is killed and started again mid-round: the round fails naming h2's
    engine; `chipperf clean` afterwards leaves nothing of the run on any host."""
    h2 = sim_cluster.hosts[1]
    cluster, test = configs(tmp_path, sim_cluster, {TWO_ROUNDS: str(digits_dir)})
    run = background(tmp_path, cluster, test)
    run.wait_for(": started chipperf-", 2)
    time.sleep(3)
    assert kill_in_host(h2.name, "dockerd")
    repair(sim_cluster)                                          # the engine comes back
    assert run.proc.wait(timeout=300) == 1, run.log.read_text()[-4000:]
    run_dir = latest_run_dir(tmp_path / "result")
    case = record_of(run_dir)["cases"][CASE_DIR]
    assert case["status"] == "failed"
    assert case["reason"].startswith(f"round 1: node 1 ({h2.address}): "), case["reason"]
    cleaned = chipperf("clean", "--cluster", str(cluster), cwd=tmp_path)
    # its exit also reflects other runs' leftovers on the shared cluster: this run's lines
    assert f"removed {WORK_ROOT}/{run_dir.name}/{h2.address}" in cleaned.output, cleaned.output
    assert not [line for line in cleaned.output.splitlines()
                if "left" in line and run_dir.name in line], cleaned.output
    assert leftovers(sim_cluster, run_dir.name) == []



def test_master_killed_mid_round_then_the_next_command_recovers(tmp_path, sim_cluster,
                                                                digits_dir, background):
    """SIGKILL of `chipperf run`: its leases end with it; check says the master is gone;
    collect closes the record, brings the round's files home and removes everything."""
    cluster, test = configs(tmp_path, sim_cluster, {TWO_ROUNDS: str(digits_dir)})
    run = background(tmp_path, cluster, test)
    run.wait_for(": started chipperf-", 2)
    run_dir = latest_run_dir(tmp_path / "result")
    # mid-round: both nodes' launchers have written (on a loaded machine a container reported
    # started can take seconds more; killed before it writes, a node has nothing to bring home)
    written = f"{WORK_ROOT}/{run_dir.name}/*/results/{CASE_DIR}/round1/*/launcher.log"
    deadline = time.monotonic() + 120
    while len(glob.glob(written)) < 2 and time.monotonic() < deadline:
        time.sleep(0.5)
    assert len(glob.glob(written)) == 2, glob.glob(written)
    run.proc.kill()
    run.proc.wait(timeout=30)
    assert record_of(run_dir)["status"] == "running"
    checked = chipperf("check", str(run_dir), cwd=tmp_path)
    assert checked.returncode == 1 and "is gone" in checked.output, checked
    assert leftovers(sim_cluster, run_dir.name)                  # what the kill left
    collected = chipperf("collect", str(run_dir), cwd=tmp_path)
    assert collected.returncode == 0, collected
    record = record_of(run_dir)
    assert record["status"] == "canceled" and record["error"]["type"] == "MasterGone"
    assert record["swept"]["by"] == "chipperf collect"
    assert "ended without closing the record" in record["cases"][CASE_DIR]["reason"]
    for host in sim_cluster.hosts[:2]:
        node = f"{CASE_DIR}/round1/{host.address}_noderank{sim_cluster.hosts.index(host)}"
        assert node in record["late"] and (run_dir / node / "launcher.log").is_file()
        assert read_status(run_dir / node)[0] == "canceled"
    assert leftovers(sim_cluster, run_dir.name) == []


def test_unwritable_result_root_is_refused_at_plan_time(tmp_path, sim_cluster):
    root = tmp_path / "result"
    root.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "ro,size=1m", "tmpfs", str(root)], check=True)
    try:
        cluster, test = configs(tmp_path, sim_cluster, {TWO_ROUNDS: "/d"})
        for command in ("plan", "run"):
            result = chipperf(command, "--cluster", str(cluster), "--test", str(test), cwd=tmp_path)
            assert result.returncode == 2, result
            assert f"RESULT_ROOT {str(root)!r}: is not writable by this user" in result.output
            assert "Traceback" not in result.output
    finally:
        subprocess.run(["umount", "-l", str(root)], check=False)
