"""File work on a host over one SFTP session, with no remote shell per call.

sshd runs every exec request through the user's login shell, and bash reads the
user's ~/.bashrc when sshd starts it: a `conda init` or `pyenv init` there costs
a few hundred milliseconds per command. The SFTP subsystem starts no shell, so a
round's file work (make the node dir, read the log tail, copy the node dir back,
remove it) costs a few round trips on an open channel instead.

Functions take a ``paramiko.SFTPClient``; errors are the ``OSError`` paramiko raises.
"""

from __future__ import annotations

import errno
import stat
from pathlib import Path, PurePosixPath
from typing import Any


def makedirs(sftp: Any, path: str) -> None:
    """``mkdir -p``: every missing directory on the way to ``path``."""
    current = PurePosixPath("/")
    for part in PurePosixPath(path).parts[1:]:
        current = current / part
        if is_dir(sftp, str(current)):
            continue
        # SFTP reports EEXIST as a bare "Failure": another host on a shared file system may
        # have made it meanwhile
        if not make_dir(sftp, str(current)) and not is_dir(sftp, str(current)):
            raise OSError(errno.ENOTDIR, f"{current} exists and is not a directory")


def make_dir(sftp: Any, path: str) -> bool:
    """Create one directory; False when ``path`` exists already (SFTP says only "Failure")."""
    try:
        sftp.mkdir(path)
        return True
    except OSError:
        if exists(sftp, path):
            return False
        raise


def is_dir(sftp: Any, path: str) -> bool:
    try:
        return stat.S_ISDIR(sftp.stat(path).st_mode or 0)
    except FileNotFoundError:
        return False


def exists(sftp: Any, path: str) -> bool:
    try:
        sftp.stat(path)
        return True
    except FileNotFoundError:
        return False


def get_tree(sftp: Any, remote_dir: str, local_dir: Path) -> list[str]:
    """Copy the regular files and directories under ``remote_dir`` into ``local_dir``;
    returns what was skipped (links, sockets, devices), relative to ``remote_dir``."""
    local_dir.mkdir(parents=True, exist_ok=True)
    skipped = []
    for entry in sftp.listdir_attr(remote_dir):
        source, target = f"{remote_dir.rstrip('/')}/{entry.filename}", local_dir / entry.filename
        mode = entry.st_mode or 0
        if stat.S_ISDIR(mode):
            skipped += [f"{entry.filename}/{s}" for s in get_tree(sftp, source, target)]
        elif stat.S_ISREG(mode):
            sftp.get(source, str(target))
        else:
            skipped.append(entry.filename)
    return skipped


def remove_tree(sftp: Any, path: str) -> None:
    """``rm -rf``: a missing ``path`` is fine."""
    try:
        entries = sftp.listdir_attr(path)
    except FileNotFoundError:
        return
    for entry in entries:
        child = f"{path.rstrip('/')}/{entry.filename}"
        if stat.S_ISDIR(entry.st_mode or 0):
            remove_tree(sftp, child)
        else:
            sftp.remove(child)
    sftp.rmdir(path)


def read_tail(sftp: Any, path: str, nbytes: int) -> bytes:
    """The last ``nbytes`` of a file (all of it when shorter)."""
    with sftp.open(path, "rb") as f:
        size = f.stat().st_size or 0
        f.seek(max(0, size - nbytes))
        return f.read(nbytes)
