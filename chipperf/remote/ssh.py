"""``SSHHost``: a host over SSH (paramiko: key auth, host keys checked against known_hosts
unless the cluster config opts out); its files over SFTP, its Docker engine through a
connection of the same settings (chipperf.remote.dockerssh).
"""

from __future__ import annotations

import contextlib
import io
import os
import shlex
import socket
import threading
import time
from functools import partial
from pathlib import Path
from typing import Any, Iterator, Sequence

import paramiko

import chipperf.remote.sftpfiles as sftpfiles
from chipperf.config.model import ClusterConfig
from chipperf.errors import HostError
from chipperf.remote.interface import HELD, CommandResult, Held, HoldEnded, Host

# how long a command's output may still come after its exit status when no EOF follows it
EOF_GRACE_S = 2.0


class SSHHost(Host):
    def __init__(self, name: str, cluster: ClusterConfig):
        self.name = name
        self.cluster = cluster
        self._lock = threading.Lock()
        self._docker: Any = None
        self._sftp_lock = threading.Lock()
        self._sftp_client: paramiko.SFTPClient | None = None
        self._held: list[paramiko.Channel] = []
        self.client = self._connect()

    def hold(self, argv: Sequence[str], timeout: float = 60) -> Held:
        deadline, said = time.monotonic() + timeout, b""
        try:
            channel = self._transport().open_session(timeout=self.cluster.connect_timeout_s)
            self._held.append(channel)
            channel.exec_command(shlex.join(argv))
            channel.sendall(HELD)
            while HELD not in said.splitlines(keepends=True):
                if channel.exit_status_ready() and not channel.recv_ready():
                    raise HoldEnded(self.name, argv, channel.recv_exit_status(),
                                    said.decode(errors="replace"))
                if time.monotonic() > deadline:
                    raise HostError(self.name, f"`{shlex.join(argv)}` did not start in "
                                               f"{timeout:.0f} s")
                if channel.recv_ready():
                    said += channel.recv(4096)
                else:
                    time.sleep(0.05)
        except (paramiko.SSHException, OSError, EOFError) as exc:
            raise HostError(self.name, f"cannot start `{argv[0]}` ({exc})",
                            unreachable=True) from exc
        lines = said.splitlines(keepends=True)
        before = b"".join(lines[:lines.index(HELD)])
        return Held(before.decode(errors="replace"), channel.sendall,
                    partial(_end_channel, channel))

    def _connect_kwargs(self) -> dict[str, Any]:
        c = self.cluster
        kwargs: dict[str, Any] = {
            "hostname": self.name, "port": c.ssh_port, "username": c.ssh_user or _current_user(),
            "timeout": c.connect_timeout_s, "banner_timeout": c.connect_timeout_s,
            "auth_timeout": c.connect_timeout_s,
        }
        if c.ssh_key:
            kwargs["key_filename"] = os.path.expanduser(c.ssh_key)
        return kwargs

    def _connect(self) -> paramiko.SSHClient:
        client = paramiko.SSHClient()
        known = os.path.expanduser(self.cluster.known_hosts)
        if os.path.exists(known):
            client.load_host_keys(known)
        if self.cluster.host_key_policy == "accept-any":
            client.set_missing_host_key_policy(paramiko.AutoAddPolicy())
        else:
            client.set_missing_host_key_policy(paramiko.RejectPolicy())
        kwargs = self._connect_kwargs()
        try:
            client.connect(**kwargs)
        except Exception as exc:
            client.close()
            raise self._explain(exc, kwargs) from exc
        transport = client.get_transport()
        if transport is not None:
            transport.set_keepalive(15)
        self._kwargs = kwargs
        return client

    def _explain(self, exc: Exception, kwargs: dict[str, Any]) -> HostError:
        port, user = kwargs["port"], kwargs["username"]
        where = f"ssh {user}@{self.name}:{port}"
        if isinstance(exc, paramiko.BadHostKeyException):
            return HostError(self.name, f"{where}: host key does not match {self.cluster.known_hosts}",
                             "the host was reinstalled or this is not the host you meant; remove the "
                             "stale entry with ssh-keygen -R and add the new key")
        if isinstance(exc, paramiko.AuthenticationException):
            key = kwargs.get("key_filename") or "the default keys / agent"
            return HostError(self.name, f"{where}: authentication failed with {key}",
                             "set SSH_USER and SSH_KEY in the cluster config to a key the host accepts")
        if isinstance(exc, paramiko.SSHException) and "known_hosts" in str(exc):
            return HostError(self.name, f"{where}: host key is not in {self.cluster.known_hosts}",
                             f"add it with `{keyscan_command(port, self.name, self.cluster.known_hosts)}`"
                             " after checking its fingerprint, or set "
                             "HOST_KEY_POLICY = 'accept-any' to opt out of verification")
        if isinstance(exc, (socket.timeout, TimeoutError)):
            return HostError(self.name, f"{where}: no answer within {kwargs['timeout']:.0f} s",
                             "check the address, that the host is up and that SSH_PORT is right",
                             unreachable=True)
        if isinstance(exc, (paramiko.ssh_exception.NoValidConnectionsError, OSError)):
            return HostError(self.name, f"{where}: cannot connect ({exc})",
                             "check the address, that sshd runs and that SSH_PORT is right",
                             unreachable=True)
        return HostError(self.name, f"{where}: {type(exc).__name__}: {exc}")

    def _transport(self) -> paramiko.Transport:
        with self._lock:
            transport = self.client.get_transport()
            if transport is None or not transport.is_active():
                self.client.close()
                self.client = self._connect()
                transport = self.client.get_transport()
            assert transport is not None
            return transport

    def run(self, argv: Sequence[str], timeout: float = 300, check: bool = True) -> CommandResult:
        try:
            channel = self._transport().open_session(timeout=self.cluster.connect_timeout_s)
            channel.exec_command(shlex.join(argv))
            code, out, err = _drain(channel, time.monotonic() + timeout)
        except TimeoutError as exc:
            raise HostError(self.name, f"`{shlex.join(argv)}` did not finish in {timeout:.0f} s") from exc
        except (paramiko.SSHException, OSError, EOFError) as exc:
            raise HostError(self.name, f"lost the SSH connection running `{argv[0]}` ({exc})",
                            "check that the host is up", unreachable=True) from exc
        return self._checked(CommandResult(tuple(argv), code, out, err), check)

    def put_archive(self, data: bytes, remote_dir: str) -> None:
        archive = f"{remote_dir.rstrip('/')}.upload.tar.gz"
        try:
            with self._sftp() as sftp:
                sftpfiles.makedirs(sftp, remote_dir)
                sftp.putfo(io.BytesIO(data), archive)
        except (paramiko.SSHException, OSError, EOFError) as exc:
            raise HostError(self.name, f"SFTP upload to {archive} failed ({exc})",
                            "check free space and permissions under WORK_ROOT") from exc
        try:
            self.run(["tar", "-xzf", archive, "-C", remote_dir])
        finally:
            self._file_op(f"removing {archive}", lambda sftp: sftp.remove(archive))

    def get_dir(self, remote_dir: str, local_dir: Path, timeout: float = 600) -> list[str]:
        try:
            with self._sftp(timeout) as sftp:
                return sftpfiles.get_tree(sftp, remote_dir, local_dir)
        except (paramiko.SSHException, OSError, EOFError) as exc:
            raise HostError(self.name, f"copying {remote_dir} back failed ({exc})") from exc

    def makedirs(self, path: str) -> None:
        self._file_op(f"creating {path}", sftpfiles.makedirs, path)

    def make_dir(self, path: str) -> bool:
        return self._file_op(f"creating {path}", sftpfiles.make_dir, path)

    def remove_tree(self, path: str) -> None:
        self._file_op(f"removing {path}", sftpfiles.remove_tree, path)

    def read_tail(self, path: str, nbytes: int, timeout: float = 120) -> bytes:
        return self._file_op(f"reading {path}", sftpfiles.read_tail, path, nbytes,
                             timeout=timeout)

    def is_dir(self, path: str) -> bool:
        return self._file_op(f"looking at {path}", sftpfiles.is_dir, path)

    def exists(self, path: str) -> bool:
        return self._file_op(f"looking at {path}", sftpfiles.exists, path)

    def _file_op(self, what: str, op: Any, *args: Any, timeout: float = 120) -> Any:
        """``op(sftp, *args)`` on this host's SFTP session, failures as HostError; no reply
        within ``timeout`` seconds is one (the session stays usable: paramiko matches a late
        reply to its request, tests/integration/test_remote.py)."""
        try:
            with self._sftp(timeout) as sftp:
                return op(sftp, *args)
        except socket.timeout as exc:
            raise HostError(self.name, f"{what}: no answer in {timeout:.0f} s") from exc
        except (paramiko.SSHException, OSError, EOFError) as exc:
            raise HostError(self.name, f"{what} failed ({exc})") from exc

    @contextlib.contextmanager
    def _sftp(self, timeout: float = 120) -> Iterator[paramiko.SFTPClient]:
        """This host's SFTP session, opened once and kept (one caller at a time)."""
        with self._sftp_lock:
            if self._sftp_client is None or self._sftp_client.get_channel().closed:
                self._sftp_client = paramiko.SFTPClient.from_transport(self._transport())
                if self._sftp_client is None:
                    raise paramiko.SSHException("the SFTP subsystem did not start")
            self._sftp_client.get_channel().settimeout(timeout)
            yield self._sftp_client

    def docker(self) -> Any:
        if self._docker is None:
            from chipperf.remote.dockerssh import docker_over_ssh

            self._docker = docker_over_ssh(self)
        return self._docker

    def new_ssh_client(self) -> paramiko.SSHClient:
        """A second connection with the same settings (the Docker transport owns its own)."""
        return self._connect()

    def close(self) -> None:
        for channel in self._held:
            channel.close()
        if self._docker is not None:
            self._docker.close()
        if self._sftp_client is not None:
            self._sftp_client.close()
        self.client.close()


def _end_channel(channel: paramiko.Channel, timeout: float) -> int | None:
    """Send EOF on a held channel, wait for its exit status, close it."""
    try:
        channel.shutdown_write()
        if channel.status_event.wait(timeout):
            return channel.recv_exit_status()
        return None
    except (paramiko.SSHException, OSError, EOFError):
        return None
    finally:
        channel.close()


def _drain(channel: paramiko.Channel, deadline: float) -> tuple[int, str, str]:
    """(exit code, stdout, stderr) of the command on ``channel``. Its end is its exit status
    and the end of its output (the channel's EOF): sshd may send the exit status before the
    last of the output (measured: `seq 1 2000` on a loaded host answered exit 0 with 1,860
    lines in 2 of 1,447 runs, which made `collect` miss a run's work dir). A command whose
    background child keeps its output open sends no EOF: its output is taken as complete
    ``EOF_GRACE_S`` after its exit status."""
    out, err = bytearray(), bytearray()
    channel.settimeout(0.2)
    grace_until: float | None = None
    while True:
        while channel.recv_ready():
            out += channel.recv(1 << 16)
        while channel.recv_stderr_ready():
            err += channel.recv_stderr(1 << 16)
        pending = channel.recv_ready() or channel.recv_stderr_ready()
        if channel.exit_status_ready() and not pending:
            if channel.eof_received:
                break
            grace_until = grace_until or time.monotonic() + EOF_GRACE_S
            if time.monotonic() > grace_until:
                break
        if time.monotonic() > deadline:
            channel.close()
            raise TimeoutError
        if channel.exit_status_ready():
            time.sleep(0.005)   # the status event stays set: waiting on it would not wait
        else:
            channel.status_event.wait(0.01)
    code = channel.recv_exit_status()
    channel.close()
    return code, out.decode(errors="replace"), err.decode(errors="replace")


def _current_user() -> str:
    import getpass

    return getpass.getuser()


def keyscan_command(port: int, host: str, known_hosts: str) -> str:
    """The shell line that adds ``host``'s key to ``known_hosts``, every word quoted (a path
    with spaces or ``;`` pastes as one path, not as more commands); ``~`` expanded here,
    since a quoted ``~`` is no longer the home folder."""
    scan = shlex.join(["ssh-keyscan", "-p", str(port), host])
    return f"{scan} >> {shlex.quote(os.path.expanduser(known_hosts))}"
