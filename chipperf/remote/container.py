"""A running container on a host, used as a host (IN_CONTAINER_LAUNCH with IN_CONTAINER_NAME).

A vendor engineer often starts one container per host from the vendor's image (devices,
drivers, data mounts already set up) and keeps it running. ``ContainerHost`` wraps the host's
own ``Host`` (SSH or local) and answers every ``Host`` call inside that container: commands
through ``docker exec`` on the host, files through the engine's archive calls. Its name is the
host's, so ranks, ``MASTER_ADDR`` and result dirs are those of the host; with the container on
the host's network (``--network host``, as chipperf's own containers are) the master's address
is reachable from inside it. chipperf never starts, stops or removes that container.
"""

from __future__ import annotations

import io
import re
import tarfile
from pathlib import Path, PurePosixPath
from typing import Any, Sequence

from chipperf.errors import HostError
from chipperf.remote.interface import CommandResult, Held, Host

# what `docker exec` says (exit 1) when the container is not there to run in
CONTAINER_GONE = re.compile(r"^Error response from daemon: (No such container: \S+|"
                            r"[Cc]ontainer \S+ is not running)", re.M)


def container_problems(host: Host, name: str, multi_node: bool) -> list[str]:
    """What stops the cases from running in ``name`` on ``host``: not there, not running, or
    (``multi_node``) not on the host's network; one line each, naming host and container."""
    where = f"{host.name}: container {name!r}"
    try:
        state = _inspect(host, name)
    except HostError as exc:
        return [str(exc)]
    if state is None:
        return [f"{where} does not exist there: start the vendor's container on every host "
                f"(docker run -d --name {name} --network host ...), or fix IN_CONTAINER_NAME"]
    status = state["State"].get("Status", "unknown")
    if not state["State"].get("Running"):
        return [f"{where} is {status}, not running: `docker start {name}` there first"]
    network = state["HostConfig"].get("NetworkMode", "")
    if multi_node and network != "host":
        return [f"{where} uses network mode {network!r}: a multi-node case's ranks meet at "
                f"MASTER_ADDR (the first host's address) on the hosts' network; start it "
                f"with --network host"]
    return []


def _inspect(host: Host, name: str) -> dict[str, Any] | None:
    """The engine's record of the container, None when there is none of that name."""
    import docker.errors

    try:
        return host.docker().containers.get(name).attrs
    except docker.errors.NotFound:
        return None
    except docker.errors.DockerException as exc:
        raise HostError(host.name, f"looking for container {name!r}: the Docker engine did "
                                   f"not answer ({exc})", "check that Docker runs there") from exc


class ContainerHost(Host):
    """``host``'s running container ``container``, answering the ``Host`` interface."""

    def __init__(self, host: Host, container: str):
        self.host, self.container, self.name = host, container, host.name
        self._docker: Any = None     # set by use_engine (IN_CONTAINER_LAUNCH's process engine)

    def __repr__(self) -> str:
        return f"ContainerHost({self.name!r}, {self.container!r})"

    def run(self, argv: Sequence[str], timeout: float = 300, check: bool = True) -> CommandResult:
        done = self._answered(self.host.run(self._exec(argv), timeout=timeout, check=False))
        return self._checked(CommandResult(tuple(argv), done.exit_code, done.stdout, done.stderr),
                             check)

    def run_detached(self, argv: Sequence[str], timeout: float = 60) -> None:
        """Start ``argv`` in the container and return (``docker exec -d``): the engine's shim,
        outside the container, is its parent and reaps it, whatever the container's PID 1
        is (one that reaps nothing would keep it as a zombie once it ended)."""
        done = self._answered(self.host.run(["docker", "exec", "-d", self.container, *argv],
                                            timeout=timeout, check=False))
        if not done.ok:
            raise HostError(self.name, f"`docker exec -d {self.container} {argv[0]} ...` "
                                       f"exited {done.exit_code}: {done.stderr.strip()[-500:]}")

    def _answered(self, done: CommandResult) -> CommandResult:
        """``done``, unless it is docker exec's own answer that the container is gone."""
        gone = CONTAINER_GONE.search(done.stderr) if done.exit_code == 1 else None
        if gone:   # docker exec's own answer, not the command's: the node is lost
            raise HostError(self.name, f"container {self.container!r} stopped or was removed "
                                       f"({gone.group(0).strip()})",
                            "chipperf neither starts nor stops it: start it again there")
        return done

    def hold(self, argv: Sequence[str], timeout: float = 60) -> Held:
        return self.host.hold(self._exec(argv, stdin=True), timeout)

    def put_archive(self, data: bytes, remote_dir: str) -> None:
        self.makedirs(remote_dir)
        if not self._engine_container().put_archive(remote_dir, data):
            raise HostError(self.name, f"unpacking into {remote_dir} in container "
                                       f"{self.container!r} failed")

    def get_dir(self, remote_dir: str, local_dir: Path, timeout: float = 600) -> list[str]:
        import docker.errors

        try:
            stream, _ = self._engine_container().get_archive(remote_dir.rstrip("/") + "/.")
            data = b"".join(stream)
        except docker.errors.DockerException as exc:
            raise HostError(self.name, f"copying {remote_dir} back from container "
                                       f"{self.container!r} failed ({exc})") from exc
        local_dir.mkdir(parents=True, exist_ok=True)
        with tarfile.open(fileobj=io.BytesIO(data), mode="r|") as tar:
            return _unpack(tar, local_dir)

    def makedirs(self, path: str) -> None:
        self.run(["mkdir", "-p", "--", path])

    def make_dir(self, path: str) -> bool:
        made = self.run(["mkdir", "--", path], check=False)
        if made.ok:
            return True
        if self.exists(path):
            return False
        raise HostError(self.name, f"creating {path} in container {self.container!r} failed: "
                                   f"{made.stderr.strip()}")

    def remove_tree(self, path: str) -> None:
        self.run(["rm", "-rf", "--", path])

    def read_tail(self, path: str, nbytes: int, timeout: float = 120) -> bytes:
        done = self.run(["tail", "-c", str(nbytes), "--", path], timeout=timeout, check=False)
        if not done.ok:
            raise HostError(self.name, f"reading {path} in container {self.container!r} "
                                       f"failed: {done.stderr.strip()}")
        return done.stdout.encode("utf-8", "surrogateescape")

    def is_dir(self, path: str) -> bool:
        return self.run(["test", "-d", path], check=False).ok

    def exists(self, path: str) -> bool:
        return self.run(["test", "-e", path], check=False).ok

    def docker(self) -> Any:
        if self._docker is None:
            raise HostError(self.name, f"container {self.container!r} has no Docker engine of "
                                       "its own to start containers in")
        return self._docker

    def close(self) -> None:
        """The host's connection is the run's (closed with the hosts precheck opened)."""

    def _exec(self, argv: Sequence[str], stdin: bool = False) -> list[str]:
        return ["docker", "exec", *(["-i"] if stdin else []), self.container, *argv]

    def _engine_container(self) -> Any:
        import docker.errors

        try:
            return self.host.docker().containers.get(self.container)
        except docker.errors.DockerException as exc:
            raise HostError(self.name, f"container {self.container!r}: {exc}") from exc


def _unpack(tar: tarfile.TarFile, local_dir: Path) -> list[str]:
    """Regular files and dirs of a ``get_archive`` stream (its top entry is ``.``) into
    ``local_dir``; returns what was not copied (links, devices), as ``get_dir`` does."""
    skipped: list[str] = []
    for member in tar:
        relative = PurePosixPath(member.name)
        if relative.is_absolute() or ".." in relative.parts:
            skipped.append(member.name)
            continue
        target = local_dir.joinpath(*relative.parts)
        if member.isdir():
            target.mkdir(parents=True, exist_ok=True)
        elif member.isfile():
            target.parent.mkdir(parents=True, exist_ok=True)
            source = tar.extractfile(member)
            assert source is not None
            target.write_bytes(source.read())
        else:
            skipped.append(str(relative))
    return skipped
