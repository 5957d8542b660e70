"""Which runs are running: a lock held for exactly as long as the run's master lives.

On the master, ``master.lock`` in the run dir is flock'ed by the `chipperf run` process: the
kernel drops the lock when that process ends in any way (SIGKILL included), so
``chipperf check`` can tell a record left "running" by a master that is gone from a run
that is going on.

On each host, ``<work dir>.lease`` is flock'ed by a `flock ... cat` process whose stdin is
an SSH channel of the master: when the master or its connection goes, cat reads
end-of-file and exits, and the lock is free. ``chipperf clean`` and ``collect`` touch only
runs whose lease is free, and remove a work dir while holding its lease.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import platform
from pathlib import Path
from typing import IO, Any

MASTER_LOCK = "master.lock"


class MasterLease:
    def __init__(self, handle: IO[str] | None):
        self._handle = handle

    @classmethod
    def take(cls, run_dir: Path) -> "MasterLease":
        try:
            handle = open(run_dir / MASTER_LOCK, "w")
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            handle.write(json.dumps({"pid": os.getpid(), "node": platform.node()}) + "\n")
            handle.flush()
        except OSError:   # a file system without locks: check cannot tell, the run goes on
            return cls(None)
        return cls(handle)

    def release(self) -> None:
        """At the run's end, its record closed: the lock file goes (a result dir keeps no
        trace of a lock), then the lock. A master killed before this leaves the file, unlocked:
        what ``master_alive`` reads as "gone"."""
        if self._handle is not None:
            with contextlib.suppress(OSError):
                os.unlink(self._handle.name)
            self._handle.close()
            self._handle = None


def master_alive(run_dir: Path) -> bool | None:
    """True while the run's master holds its lock, False when it is gone, None when the run
    dir has no lock file (an older or foreign run) or locks do not work there."""
    path = Path(run_dir) / MASTER_LOCK
    if not path.is_file():
        return None
    try:
        with open(path) as handle:
            try:
                fcntl.flock(handle, fcntl.LOCK_SH | fcntl.LOCK_NB)
            except BlockingIOError:
                return True
            return False
    except OSError:
        return None


def master_of(run_dir: Path) -> dict[str, Any]:
    try:
        return dict(json.loads((Path(run_dir) / MASTER_LOCK).read_text() or "{}"))
    except (OSError, ValueError):
        return {}


def lease_path(work_dir: str) -> str:
    """Beside the work dir (``<work_root>/<run_id>/<host>.lease``): taken before the work dir
    is made, so a sweep never removes the dir of a run that is starting."""
    return f"{work_dir.rstrip('/')}.lease"


BUSY = 75   # what the non-blocking forms exit with when the run holds its lease


def hold_argv(work_dir: str) -> list[str]:
    """Holds the run's lease until stdin closes (cat runs only once flock holds it)."""
    return ["flock", "--wait", "20", lease_path(work_dir), "cat"]


def busy_argv(work_dir: str) -> list[str]:
    """Exits BUSY while the run holds its lease on this host, 0 when it does not."""
    return ["flock", "--nonblock", "--conflict-exit-code", str(BUSY), lease_path(work_dir), "true"]


def remove_argv(work_dir: str) -> list[str]:
    """Removes the work dir under the lease, so a run holding it is never touched (BUSY)."""
    return ["flock", "--nonblock", "--conflict-exit-code", str(BUSY), lease_path(work_dir),
            "rm", "-rf", "--", work_dir]
