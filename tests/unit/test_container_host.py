"""chipperf.remote.container's pure parts: what a ``get_archive`` stream of a container's
dir unpacks to on the master, and which ``docker exec`` answers mean the container is gone."""

from __future__ import annotations

import io
import tarfile
from pathlib import Path

from chipperf.remote.container import CONTAINER_GONE, _unpack


def _archive(*members: tarfile.TarInfo, data: dict[str, bytes] | None = None) -> io.BytesIO:
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w") as tar:
        for member in members:
            body = (data or {}).get(member.name)
            if body is not None:
                member.size = len(body)
            tar.addfile(member, io.BytesIO(body) if body is not None else None)
    out.seek(0)
    return out


def _member(name: str, kind: bytes = tarfile.REGTYPE, target: str = "") -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type, info.linkname = kind, target
    return info


def test_files_and_dirs_come_back_links_and_escapes_are_named(tmp_path: Path) -> None:
    stream = _archive(_member("./", tarfile.DIRTYPE), _member("./round1", tarfile.DIRTYPE),
                      _member("./round1/rank0.out.log"), _member("./link", tarfile.SYMTYPE, "/etc"),
                      _member("../outside"), _member("/abs"),
                      data={"./round1/rank0.out.log": b"[PerfLog] x\n", "../outside": b"no",
                            "/abs": b"no"})
    with tarfile.open(fileobj=stream, mode="r|") as tar:
        skipped = _unpack(tar, tmp_path / "got")
    assert (tmp_path / "got" / "round1" / "rank0.out.log").read_bytes() == b"[PerfLog] x\n"
    assert sorted(skipped) == ["../outside", "/abs", "link"]
    assert not (tmp_path / "outside").exists() and not (tmp_path / "got" / "link").exists()


def test_docker_exec_s_own_answers_for_a_container_that_is_not_there() -> None:
    assert CONTAINER_GONE.search("Error response from daemon: Container f0bb0b is not running\n")
    assert CONTAINER_GONE.search("Error response from daemon: No such container: vendor-pytorch")
    assert not CONTAINER_GONE.search("python3: can't open file 'x.py'\n")
    assert not CONTAINER_GONE.search("the case said: Error response from daemon: x is not running")
