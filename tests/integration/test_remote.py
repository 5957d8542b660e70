"""Hosts against a real sshd and real Docker engines (the simulated cluster)."""

from __future__ import annotations

import io
import subprocess
import tarfile
import time

import pytest

from chipperf.config.model import ClusterConfig
from chipperf.errors import GroupError, HostError
from chipperf.remote import HostGroup, LocalHost, SSHHost

pytestmark = pytest.mark.integration


def cluster_config(sim_cluster, **kw) -> ClusterConfig:
    base = dict(hosts=tuple(h.address for h in sim_cluster.hosts), ssh_user=sim_cluster.ssh_user,
                ssh_key=sim_cluster.ssh_key, known_hosts=sim_cluster.known_hosts, connect_timeout_s=5)
    return ClusterConfig(**{**base, **kw})


def archive(files: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        for name, data in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def test_argv_is_quoted_once_and_never_interpreted_by_a_shell(sim_cluster, tmp_path):
    host = SSHHost(sim_cluster.hosts[0].address, cluster_config(sim_cluster))
    try:
        tricky = ["it's", "$HOME", "a b", "; touch /tmp/chipperf-pwned", "*"]
        result = host.run(["printf", "%s\\n", *tricky])
        assert result.stdout.splitlines() == tricky
        bad = host.run(["sh", "-c", "echo oops >&2; exit 3"], check=False)
        assert (bad.exit_code, bad.stderr.strip()) == (3, "oops")
        with pytest.raises(HostError, match="exited 3"):
            host.run(["sh", "-c", "exit 3"])
        started = time.monotonic()
        with pytest.raises(HostError, match="did not finish in 1 s"):
            host.run(["sleep", "30"], timeout=1)
        assert time.monotonic() - started < 5
    finally:
        host.close()


def test_archive_upload_and_dir_download(sim_cluster, tmp_path):
    host = SSHHost(sim_cluster.hosts[1].address, cluster_config(sim_cluster))
    remote = f"/tmp/chipperf-remote-test-{time.time_ns()}"
    try:
        host.put_archive(archive({"a/b.txt": b"hello", "c.bin": bytes(range(256))}), remote)
        assert host.run(["cat", f"{remote}/a/b.txt"]).stdout == "hello"
        host.get_dir(remote, tmp_path / "back")
        assert (tmp_path / "back/a/b.txt").read_bytes() == b"hello"
        assert (tmp_path / "back/c.bin").read_bytes() == bytes(range(256))
        with pytest.raises(HostError, match="copying /nonexistent back failed"):
            host.get_dir("/nonexistent", tmp_path / "none")
    finally:
        host.run(["rm", "-rf", remote], check=False)
        host.close()


@pytest.mark.parametrize("kind", ["ssh", "local"])
def test_file_operations_without_a_shell(sim_cluster, tmp_path, kind):
    """makedirs / read_tail / is_dir / exists / remove_tree, and what get_dir will not copy."""
    host = SSHHost(sim_cluster.hosts[0].address, cluster_config(sim_cluster)) if kind == "ssh" \
        else LocalHost()
    remote = f"/tmp/chipperf-files-test-{time.time_ns()}"
    try:
        host.makedirs(f"{remote}/a/b")
        host.makedirs(f"{remote}/a/b")  # idempotent, like mkdir -p
        assert host.is_dir(f"{remote}/a/b") and not host.exists(f"{remote}/nothing")
        host.put_archive(archive({"a/b/log": b"".join(b"line %d\n" % i for i in range(5000))}),
                         remote)
        tail = host.read_tail(f"{remote}/a/b/log", 20)
        assert tail.endswith(b"line 4999\n") and len(tail) == 20
        assert host.read_tail(f"{remote}/a/b/log", 10**9).startswith(b"line 0\n")
        assert host.exists(f"{remote}/a/b/log") and not host.is_dir(f"{remote}/a/b/log")
        with pytest.raises(HostError, match="(?i)not a directory"):
            host.makedirs(f"{remote}/a/b/log/x")
        if kind == "ssh":
            host.run(["ln", "-s", "/etc/passwd", f"{remote}/a/link"])
            assert host.get_dir(remote, tmp_path / "back") == ["a/link"]  # named, not followed
            assert (tmp_path / "back/a/b/log").stat().st_size == 48890
            assert not (tmp_path / "back/a/link").exists()
        host.remove_tree(remote)
        assert not host.exists(remote)
        host.remove_tree(remote)  # a missing tree is fine
    finally:
        host.remove_tree(remote)
        host.close()


def test_docker_over_ssh_uses_the_configured_key_and_the_hosts_own_engine(sim_cluster):
    group = HostGroup.connect([h.address for h in sim_cluster.hosts], cluster_config(sim_cluster))
    try:
        roots = group.run_step("docker info", lambda h: h.docker().info()["DockerRootDir"])
    finally:
        group.close()
    assert roots == {h.address: f"/var/lib/chipperf-sim/{h.name}/docker" for h in sim_cluster.hosts}


def test_docker_calls_share_one_ssh_session_per_host(sim_cluster, monkeypatch):
    """Calls on different URLs reuse the open dial-stdio channel; a dead one is replaced."""
    import docker.errors
    import paramiko

    sessions = []
    exec_command = paramiko.Channel.exec_command
    monkeypatch.setattr(paramiko.Channel, "exec_command",
                        lambda channel, cmd: (sessions.append(cmd), exec_command(channel, cmd))[1])
    host = SSHHost(sim_cluster.hosts[0].address, cluster_config(sim_cluster))
    try:
        client = host.docker()
        for n in range(8):  # each a different URL, as container calls are
            with pytest.raises(docker.errors.NotFound):
                client.api.inspect_container(f"chipperf-no-such-container-{n}")
        assert sessions == ["docker system dial-stdio"]
        pool = client.api._custom_adapter.get_connection("http+docker://ssh/anything")
        for conn in list(pool.pool.queue):
            if conn is not None and conn.sock is not None:
                conn.sock.close()
        assert client.version()["ApiVersion"]
        assert len(sessions) == 2
    finally:
        host.close()


def test_group_failure_carries_every_hosts_outcome(sim_cluster):
    group = HostGroup.connect([h.address for h in sim_cluster.hosts], cluster_config(sim_cluster))
    bad = sim_cluster.hosts[1].address
    try:
        with pytest.raises(GroupError) as err:
            group.run_step("probe", lambda h: h.run(["test", "-d", "/nonexistent" if h.name == bad
                                                     else "/tmp"]))
    finally:
        group.close()
    assert set(err.value.results) == {h.address for h in sim_cluster.hosts}
    assert list(err.value.failures) == [bad]
    assert "probe failed on 1 of 3 host(s)" in str(err.value) and bad in str(err.value)


def test_fan_out_cost_stays_flat(sim_cluster):
    """One step on three hosts costs about what it costs on one (parallel, not serial)."""
    config = cluster_config(sim_cluster)
    timings = {}
    for n in (1, 3):
        group = HostGroup.connect(config.hosts[:n], config)
        try:
            started = time.monotonic()
            group.run_step("sleep", lambda h: h.run(["sleep", "1"]))
            timings[n] = time.monotonic() - started
        finally:
            group.close()
    assert timings[3] < timings[1] + 0.9, timings


def test_connection_errors_name_the_host_and_the_fix(sim_cluster, tmp_path):
    empty = tmp_path / "known_hosts"
    empty.write_text("")
    address = sim_cluster.hosts[0].address
    with pytest.raises(HostError, match=f"{address}.*host key is not in.*ssh-keyscan"):
        SSHHost(address, cluster_config(sim_cluster, known_hosts=str(empty)))
    with pytest.raises(HostError, match=f"{address}.*cannot connect.*SSH_PORT"):
        SSHHost(address, cluster_config(sim_cluster, ssh_port=2222))


def test_local_host(tmp_path):
    host = LocalHost()
    assert host.run(["printf", "%s", "a b"]).stdout == "a b"
    host.put_archive(archive({"x/y": b"1"}), str(tmp_path / "up"))
    host.get_dir(str(tmp_path / "up"), tmp_path / "down")
    assert (tmp_path / "down/x/y").read_text() == "1"


def test_a_read_from_a_host_gone_quiet_gives_up_after_its_timeout(sim_cluster):
    """The round's progress line reads a rank log with a short timeout: with the host's link
    down the read fails after that timeout (not the SFTP session's 120 s), and once the link is
    back the same session reads again, each read its own file (the late reply is not taken for
    the next request's)."""
    sim = sim_cluster.hosts[2]
    host = SSHHost(sim.address, cluster_config(sim_cluster))
    remote = f"/tmp/chipperf-quiet-test-{time.time_ns()}"
    veth = f"cpv-{sim.name}"   # the master's end of the host's link
    try:
        host.put_archive(archive({"log": b"step 1\nstep 2\n", "other": b"other\n"}), remote)
        assert host.read_tail(f"{remote}/log", 7) == b"step 2\n"
        subprocess.run(["ip", "link", "set", veth, "down"], check=True)
        try:
            started = time.monotonic()
            with pytest.raises(HostError, match=r"reading .*/log: no answer in 2 s"):
                host.read_tail(f"{remote}/log", 7, timeout=2)
            assert time.monotonic() - started < 10
        finally:
            subprocess.run(["ip", "link", "set", veth, "up"], check=True)
        assert host.read_tail(f"{remote}/other", 100) == b"other\n"
        assert host.read_tail(f"{remote}/log", 7) == b"step 2\n"
    finally:
        host.run(["rm", "-rf", remote], check=False)
        host.close()
