"""What every host offers (``Host``): run an argv, move files, hold a command open, open its
Docker engine; a command's result; a held command. Commands are argument lists, quoted
once at the edge (chipperf.remote.local, chipperf.remote.ssh).
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Sequence

from chipperf.errors import HostError


@dataclass(frozen=True)
class CommandResult:
    argv: tuple[str, ...]
    exit_code: int
    stdout: str
    stderr: str

    @property
    def ok(self) -> bool:
        return self.exit_code == 0


HELD = b"held\n"   # what hold() sends through cat and waits to see back


class HoldEnded(HostError):
    """The command hold() started ended before it held anything: its exit status and what
    it printed (a lease that another run holds says so this way)."""

    def __init__(self, host: str, argv: Sequence[str], exit_code: int, said: str):
        super().__init__(host, f"`{shlex.join(argv)}` ended (exit {exit_code})")
        self.exit_code, self.said = exit_code, said


class Held:
    """A command hold() started: what it printed before its echo, and its stdin."""

    def __init__(self, said: str, send: Callable[[bytes], None],
                 end: Callable[[float], int | None]):
        self.said = said
        self._send, self._end = send, end

    def send(self, line: str) -> None:
        """One line to the command's stdin."""
        self._send(line.encode() + b"\n")

    def end(self, timeout: float = 10) -> int | None:
        """Close its stdin and wait up to ``timeout`` s for its exit status (None: none came)."""
        return self._end(timeout)


class Host:
    """The interface every step uses; see ``SSHHost`` and ``LocalHost``."""

    name: str

    def run(self, argv: Sequence[str], timeout: float = 300, check: bool = True) -> CommandResult:
        raise NotImplementedError

    def put_archive(self, data: bytes, remote_dir: str) -> None:
        """Unpack a tar archive (bytes) into ``remote_dir``, creating it."""
        raise NotImplementedError

    def hold(self, argv: Sequence[str], timeout: float = 60) -> "Held":
        """Start ``argv`` (a command ending in one that echoes its stdin, such as ``cat``)
        with its stdin held open by this connection until ``close()`` or this process's end:
        a lease that lives exactly as long as the master does. Returns once it echoed a
        line, i.e. once it runs; HoldEnded when it ended before that."""
        raise NotImplementedError

    def get_dir(self, remote_dir: str, local_dir: Path, timeout: float = 600) -> list[str]:
        """Copy a remote directory's contents into ``local_dir``; returns what was not copied
        (links, sockets, devices), relative to ``remote_dir``."""
        raise NotImplementedError

    def makedirs(self, path: str) -> None:
        raise NotImplementedError

    def make_dir(self, path: str) -> bool:
        """Create ``path`` (its parent must exist); False when it exists already."""
        raise NotImplementedError

    def remove_tree(self, path: str) -> None:
        """``rm -rf``; a missing path is fine."""
        raise NotImplementedError

    def read_tail(self, path: str, nbytes: int, timeout: float = 120) -> bytes:
        """The last ``nbytes`` of ``path``; HostError when the host does not answer within
        ``timeout`` seconds."""
        raise NotImplementedError

    def is_dir(self, path: str) -> bool:
        raise NotImplementedError

    def exists(self, path: str) -> bool:
        raise NotImplementedError

    def docker(self) -> Any:
        """A docker.DockerClient talking to this host's engine."""
        raise NotImplementedError

    def use_engine(self, engine: Any) -> None:
        """Answer ``docker()`` with ``engine`` from now on (IN_CONTAINER_LAUNCH: the host is a
        container, chipperf.containers.incontainer)."""
        self._docker = engine

    def close(self) -> None:
        pass

    def _checked(self, result: CommandResult, check: bool) -> CommandResult:
        if check and not result.ok:
            detail = (result.stderr or result.stdout).strip()[-2000:]
            raise HostError(self.name, f"`{shlex.join(result.argv)}` exited {result.exit_code}"
                            + (f": {detail}" if detail else ""))
        return result
