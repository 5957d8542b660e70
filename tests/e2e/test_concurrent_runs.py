"""Two runs on the same simulated host (issue 27 item 2): the cluster lease refuses the
second at once naming the first, or makes it wait with --wait; a killed master's lease is
taken over with a line; a port in use is named, with its holder, and the round after it is
not started. The "other master" of the first test is this test process, holding the lease
over its own SSH connection exactly as `chipperf run` does."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import REPO, chipperf, latest_run_dir, leftovers, write_configs
from test_fault_injection_hosts import tiny_digits, tiny_training  # noqa: F401 (fixtures)

from chipperf.config import load_cluster
from chipperf.remote.host import open_host
from chipperf.run.clusterlease import ClusterLease, Holder

pytestmark = pytest.mark.e2e

TINY = "resnet50:pytorch_2.13:xeon:1:1:1"
TWO_ROUNDS = "resnet50:pytorch_2.13:xeon:1:1:2"
PORT = 29541      # MASTER_PORT of these runs (others' e2e runs use 29517)


def configs(where: Path, sim_cluster, case: str, data: Path, training: Path):
    return write_configs(where, [sim_cluster.hosts[0].address], {case: str(data)},
                         ssh_key=sim_cluster.ssh_key, known_hosts=sim_cluster.known_hosts,
                         master_port=PORT, extra_test=f"TRAINING_DIR = {str(training)!r}\n")


def start(where: Path, cluster: Path, test: Path, *extra: str) -> tuple[subprocess.Popen, Path]:
    console = where / "console.log"
    proc = subprocess.Popen([sys.executable, "-m", "chipperf.cli", "run", "--cluster", str(cluster),
                             "--test", str(test), "--no-ingest", *extra], cwd=where,
                            stdout=console.open("w"), stderr=subprocess.STDOUT,
                            env={**os.environ, "PYTHONPATH": str(REPO)})
    return proc, console


def wait_for(proc: subprocess.Popen, console: Path, text: str, timeout: float = 600) -> None:
    deadline = time.monotonic() + timeout
    while text not in console.read_text():
        assert proc.poll() is None and time.monotonic() < deadline, console.read_text()[-4000:]
        time.sleep(0.3)


def test_a_second_run_is_refused_at_once_or_waits(tmp_path, sim_cluster, tiny_digits,  # noqa: F811
                                                  tiny_training):  # noqa: F811
    cluster, test = configs(tmp_path, sim_cluster, TINY, tiny_digits, tiny_training)
    address = sim_cluster.hosts[0].address
    other = open_host(address, load_cluster(str(cluster)))
    holder = Holder("other-master", 4242, "2026-01-02T03:04:05+00:00", "root",
                    "run20260102030405", "/elsewhere/run20260102030405")
    lease = ClusterLease.take({address: other}, holder=holder)
    try:
        started = time.monotonic()
        refused = chipperf("run", "--cluster", str(cluster), "--test", str(test), "--no-ingest",
                           cwd=tmp_path)
        took = time.monotonic() - started
        assert refused.returncode == 1, refused
        assert (f"chipperf: {address} is in use by run run20260102030405 (master other-master, "
                "pid 4242, user root, since 2026-01-02T03:04:05+00:00): this run was not "
                "started (nothing was touched)") in refused.output, refused
        assert refused.run_dir is None and took < 60, (took, refused)   # no run dir, no build
        print(f"refused in {took:.1f} s")

        proc, console = start(tmp_path, cluster, test, "--wait")
        wait_for(proc, console, "waiting for it (--wait")
        assert f"{address} is in use by run run20260102030405" in console.read_text()
    finally:
        lease.release()
        other.close()
    assert proc.wait(timeout=900) == 0, console.read_text()[-4000:]
    run_dir = latest_run_dir(tmp_path / "result")
    assert json.loads((run_dir / "run.json").read_text())["status"] == "succeeded"
    assert "took over" not in console.read_text()   # released properly, not abandoned


def test_a_killed_masters_lease_is_taken_over(tmp_path, sim_cluster, tiny_digits,  # noqa: F811
                                              tiny_training):  # noqa: F811
    cluster, test = configs(tmp_path, sim_cluster, TINY, tiny_digits, tiny_training)
    proc, console = start(tmp_path, cluster, test)
    wait_for(proc, console, ": started chipperf-")
    killed = latest_run_dir(tmp_path / "result")
    proc.kill()
    proc.wait(timeout=30)
    second = chipperf("run", "--cluster", str(cluster), "--test", str(test), "--no-ingest",
                      cwd=tmp_path)
    assert second.returncode == 0, second
    assert (f"[{sim_cluster.hosts[0].address}] took over the lease of run {killed.name} (master "
            f"{os.uname().nodename}, pid {proc.pid}") in second.output, second
    assert "its master is gone (it ended without releasing the host)" in second.output
    print(next(line for line in second.output.splitlines() if "took over" in line))
    assert json.loads((killed / "run.json").read_text())["status"] == "canceled"  # swept
    host = json.loads((second.run_dir / "run.json").read_text())["hosts"][sim_cluster.hosts[0].address]
    assert host["lease_taken_over_from"].startswith(f"run {killed.name} (master ")
    assert leftovers(sim_cluster, killed.name) == []


def test_a_port_in_use_is_named_and_the_next_round_not_started(tmp_path, sim_cluster,
                                                                tiny_digits,  # noqa: F811
                                                                tiny_training):  # noqa: F811
    host = sim_cluster.hosts[0]
    cluster, test = configs(tmp_path, sim_cluster, TWO_ROUNDS, tiny_digits, tiny_training)
    squatter = subprocess.Popen(
        ["ip", "netns", "exec", f"chipperf-{host.name}", sys.executable, "-c",
         "import socket, sys, time; s = socket.socket(); "
         "s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); "
         f"s.bind(('0.0.0.0', {PORT})); s.listen(); print('listening', flush=True); "
         "time.sleep(900)"], stdout=subprocess.PIPE, text=True)
    try:
        assert squatter.stdout is not None and squatter.stdout.readline() == "listening\n"
        run = chipperf("run", "--cluster", str(cluster), "--test", str(test), "--no-ingest",
                       cwd=tmp_path)
    finally:
        squatter.kill()
        squatter.wait()
    assert run.returncode == 1, run
    case = json.loads((run.run_dir / "run.json").read_text())["cases"][
        "resnet50-pytorch_2.13-xeon-1x1"]
    first = case["rounds"][0]
    print(first["reason"], case["skipped_because"], sep="\n")
    assert first["reason"].startswith(f"node 0 ({host.address}): port {PORT} on {host.address} "
                                      f"is already in use, held by python")
    assert first["port_in_use"] == {host.address: PORT}
    assert case["skipped_rounds"] == [2] and len(case["rounds"]) == 1
    assert case["skipped_because"] == f"port {PORT} on {host.address} is already in use in round 1"
    assert "launcher exited with status 1" not in case["reason"].split("(")[0]
    with socket.socket() as probe:   # the squatter is gone: nothing of the run holds the port
        probe.settimeout(2)
        assert probe.connect_ex((host.address, PORT)) != 0
