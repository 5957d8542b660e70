"""``LocalHost``: the host chipperf runs on (127.0.0.1 / localhost), without SSH.
"""

from __future__ import annotations

import contextlib
import io
import os
import shlex
import shutil
import subprocess
import tarfile
from functools import partial
from pathlib import Path
from typing import Any, Sequence

from chipperf.errors import HostError
from chipperf.remote.interface import HELD, CommandResult, Held, HoldEnded, Host


class LocalHost(Host):
    def __init__(self, name: str = "127.0.0.1"):
        self.name = name
        self._docker: Any = None
        self._held: list[subprocess.Popen] = []

    def hold(self, argv: Sequence[str], timeout: float = 60) -> Held:
        try:
            proc = subprocess.Popen(list(argv), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                    stderr=subprocess.DEVNULL)
        except OSError as exc:
            raise HostError(self.name, f"cannot start {argv[0]} ({exc})") from exc
        self._held.append(proc)
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write(HELD)
        proc.stdin.flush()
        said = b""
        for line in iter(proc.stdout.readline, b""):
            if line == HELD:
                return Held(said.decode(errors="replace"), partial(_write_flush, proc.stdin),
                            partial(_end_process, proc))
            said += line
        raise HoldEnded(self.name, argv, proc.wait(), said.decode(errors="replace"))

    def run(self, argv: Sequence[str], timeout: float = 300, check: bool = True) -> CommandResult:
        try:
            proc = subprocess.run(list(argv), capture_output=True, text=True, timeout=timeout,
                                  errors="replace")
        except FileNotFoundError as exc:
            raise HostError(self.name, f"command not found: {argv[0]}") from exc
        except subprocess.TimeoutExpired as exc:
            raise HostError(self.name, f"`{shlex.join(argv)}` did not finish in {timeout:.0f} s") from exc
        return self._checked(CommandResult(tuple(argv), proc.returncode, proc.stdout, proc.stderr),
                             check)

    def put_archive(self, data: bytes, remote_dir: str) -> None:
        Path(remote_dir).mkdir(parents=True, exist_ok=True)
        with tarfile.open(fileobj=io.BytesIO(data), mode="r:*") as tar:
            _extract(tar, remote_dir)

    def get_dir(self, remote_dir: str, local_dir: Path, timeout: float = 600) -> list[str]:
        if not Path(remote_dir).is_dir():
            raise HostError(self.name, f"{remote_dir} does not exist")
        shutil.copytree(remote_dir, local_dir, dirs_exist_ok=True, symlinks=True)
        return []

    def makedirs(self, path: str) -> None:
        self._file_op(f"creating {path}", lambda: Path(path).mkdir(parents=True, exist_ok=True))

    def make_dir(self, path: str) -> bool:
        try:
            os.mkdir(path)
            return True
        except FileExistsError:
            return False
        except OSError as exc:
            raise HostError(self.name, f"creating {path} failed ({exc})") from exc

    def remove_tree(self, path: str) -> None:
        shutil.rmtree(path, ignore_errors=True)

    def read_tail(self, path: str, nbytes: int, timeout: float = 120) -> bytes:
        def tail() -> bytes:
            with open(path, "rb") as f:
                f.seek(max(0, os.fstat(f.fileno()).st_size - nbytes))
                return f.read(nbytes)
        return self._file_op(f"reading {path}", tail)

    def is_dir(self, path: str) -> bool:
        return Path(path).is_dir()

    def exists(self, path: str) -> bool:
        return Path(path).exists()

    def _file_op(self, what: str, op: Any) -> Any:
        try:
            return op()
        except OSError as exc:
            raise HostError(self.name, f"{what} failed ({exc})") from exc

    def docker(self) -> Any:
        if self._docker is None:
            import docker

            try:
                # the same read timeout as an engine over SSH (docker_over_ssh): a local engine
                # busy with other builds went quiet for over 120 s in `docker save` of a
                # 1.6 GiB image while shipping it (seen on the 2-core CI machine under load)
                self._docker = docker.from_env(timeout=600)
                self._docker.ping()
            except Exception as exc:
                self._docker = None
                raise HostError(self.name, f"no Docker engine answers ({exc})",
                                "install Docker and start dockerd, or set DOCKER_HOST") from exc
        return self._docker

    def close(self) -> None:
        for proc in self._held:
            if proc.stdin is not None:
                proc.stdin.close()
            proc.wait(timeout=10)
        self._held.clear()
        if self._docker is not None:
            self._docker.close()


def _write_flush(stream: Any, data: bytes) -> None:
    stream.write(data)
    stream.flush()


def _end_process(proc: subprocess.Popen, timeout: float) -> int | None:
    with contextlib.suppress(OSError):
        proc.stdin.close()   # type: ignore[union-attr]
    try:
        return proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        return None


def _extract(tar: tarfile.TarFile, target: str) -> None:
    if hasattr(tarfile, "data_filter"):
        tar.extractall(target, filter="data")
    else:  # Python < 3.12 without the backported filter
        tar.extractall(target)
