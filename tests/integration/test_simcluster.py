"""The simulated cluster itself: each host is reachable over SSH with the cluster key,
verifies host keys against known_hosts, and talks to its own Docker daemon; containers
with host networking on different hosts reach each other over 10.231.0.x."""

from __future__ import annotations

import os
import subprocess
import sys
import uuid
from pathlib import Path

import docker
import paramiko
import pytest

pytestmark = pytest.mark.integration

HOST_NAMES = ["h1", "h2", "h3"]
SIMCLUSTER_PY = Path(__file__).resolve().parents[1] / "simcluster" / "simcluster.py"
MINBASE = "chipperf-sim/minbase:test"


def _ssh(cluster, host) -> paramiko.SSHClient:
    c = paramiko.SSHClient()
    c.load_host_keys(cluster.known_hosts)
    c.set_missing_host_key_policy(paramiko.RejectPolicy())
    c.connect(host.address, port=host.ssh_port, username=cluster.ssh_user,
              key_filename=cluster.ssh_key, look_for_keys=False, allow_agent=False, timeout=15)
    return c


def _run(client: paramiko.SSHClient, command: str) -> tuple[int, str, str]:
    _, out, err = client.exec_command(command, timeout=60)
    rc = out.channel.recv_exit_status()
    return rc, out.read().decode(), err.read().decode()


def _local_daemon_info(host) -> dict:
    c = docker.DockerClient(base_url=host.docker_host)
    try:
        return c.info()
    finally:
        c.close()


def test_hosts_are_distinct(sim_cluster):
    hosts = sim_cluster.hosts
    assert [h.name for h in hosts[:3]] == HOST_NAMES
    assert len({h.address for h in hosts}) == len(hosts)
    assert len({h.docker_host for h in hosts}) == len(hosts)
    roots = [_local_daemon_info(h)["DockerRootDir"] for h in hosts]
    assert len(set(roots)) == len(roots), roots


@pytest.mark.parametrize("name", HOST_NAMES)
def test_ssh_docker_info_is_the_hosts_own_daemon(sim_cluster, name):
    host = sim_cluster.host(name)
    expected = _local_daemon_info(host)["DockerRootDir"]
    assert f"/{name}/" in expected
    with _ssh(sim_cluster, host) as c:
        rc, out, err = _run(c, "docker info --format '{{.DockerRootDir}}'")
        assert rc == 0, err
        assert out.strip() == expected
        rc, out, err = _run(c, "hostname -I 2>/dev/null || ip -4 -o addr show dev eth0")
        assert host.address in out
        # SFTP (how the engine ships case code to hosts).
        remote = f"/tmp/chipperf-simtest-{name}-{uuid.uuid4().hex[:8]}"
        with c.open_sftp() as sftp:
            with sftp.file(remote, "w") as f:
                f.write(f"hello {name}\n")
            with sftp.file(remote) as f:
                assert f.read().decode() == f"hello {name}\n"
            sftp.remove(remote)


@pytest.mark.parametrize("name", HOST_NAMES)
def test_docker_sdk_over_ssh_reaches_the_hosts_daemon(sim_cluster, name):
    host = sim_cluster.host(name)
    client = docker.DockerClient(base_url=f"ssh://{sim_cluster.ssh_user}@{host.address}:{host.ssh_port}")
    try:
        info = client.info()
    finally:
        client.close()
    assert info["DockerRootDir"] == _local_daemon_info(host)["DockerRootDir"]
    assert f"chipperf.sim.host={name}" in info["Labels"]


def test_unknown_host_key_is_rejected(sim_cluster, tmp_path):
    host = sim_cluster.hosts[0]
    empty = tmp_path / "known_hosts"
    empty.write_text("")
    c = paramiko.SSHClient()
    c.load_host_keys(str(empty))
    c.set_missing_host_key_policy(paramiko.RejectPolicy())
    with pytest.raises(paramiko.SSHException):
        c.connect(host.address, port=host.ssh_port, username=sim_cluster.ssh_user,
                  key_filename=sim_cluster.ssh_key, look_for_keys=False, allow_agent=False, timeout=15)
    c.close()


def _sim(*args: str) -> None:
    r = subprocess.run([sys.executable, str(SIMCLUSTER_PY), *args], check=False,
                       capture_output=True, text=True, timeout=1500)
    assert r.returncode == 0, f"simcluster.py {' '.join(args)} failed:\n{r.stderr[-4000:]}"


def test_host_network_containers_talk_across_hosts(sim_cluster, local_docker):
    """A container on h1 listens on h1's address; a container on h2 connects to it."""
    h1, h2 = sim_cluster.host("h1"), sim_cluster.host("h2")
    _sim("ensure-minbase")  # debootstrap bookworm minbase, once per machine
    clients = {h.name: docker.DockerClient(base_url=h.docker_host) for h in (h1, h2)}
    try:
        missing = [n for n, c in clients.items() if not c.images.list(name=MINBASE)]
        if missing:
            _sim("load-image", MINBASE, "--hosts", ",".join(missing))
        port = 20000 + os.getpid() % 20000
        tag = uuid.uuid4().hex[:8]
        server = clients["h1"].containers.run(
            MINBASE, name=f"simtest-srv-{tag}", network_mode="host", detach=True,
            command=["perl", "-MIO::Socket::INET", "-e",
                     (f'my $s = IO::Socket::INET->new(LocalAddr => "{h1.address}", '
                      f'LocalPort => {port}, Listen => 5, ReuseAddr => 1) or die "listen: $!"; '
                      'my $c = $s->accept; print $c "hello from h1\\n"; close $c;')])
        try:
            out = clients["h2"].containers.run(
                MINBASE, name=f"simtest-cli-{tag}", network_mode="host", remove=True,
                command=["bash", "-c",
                         (f"for i in $(seq 100); do "
                          f"exec 3<>/dev/tcp/{h1.address}/{port} 2>/dev/null && break; sleep 0.1; done; "
                          "read -r line <&3 && echo \"got: $line\"")])
            # (The server could bind h1's address only because it runs in h1's namespace.)
            assert out.decode().strip() == "got: hello from h1"
        finally:
            server.remove(force=True)
    finally:
        for c in clients.values():
            c.close()
