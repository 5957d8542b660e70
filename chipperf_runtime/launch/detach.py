"""A process that outlives the command that started it, with its exit status on disk.

IN_CONTAINER_LAUNCH (chipperf.containers.incontainer) runs a node's case and monitor as
processes in a container that already exists, over SSH, where no engine keeps a container's
state. This module keeps it in a state dir instead::

    python3 -m chipperf_runtime.launch.detach start STATE CMD [ARG ...]   prints the supervisor's pid
    python3 -m chipperf_runtime.launch.detach supervise STATE CMD [ARG ...]   the supervisor itself
    python3 -m chipperf_runtime.launch.detach started STATE TIMEOUT_S     prints its pid once it runs
    python3 -m chipperf_runtime.launch.detach stop STATE GRACE_S          SIGTERM the group, then KILL

``start`` returns at once. A supervisor in a new session (its pid is the process group) writes
``STATE/pid`` and ``started_ms``, runs CMD with stdout and stderr in ``STATE/output.log``,
then writes ``finished_ms`` and ``exit`` (CMD's status; 128+N for signal N), each file
atomically. ``stop`` signals the whole group, so a launcher's ranks go with it.

No zombie is left, whatever the container's PID 1 is: the supervisor makes itself a child
subreaper (Linux's ``PR_SET_CHILD_SUBREAPER``), so every process CMD starts and leaves behind
becomes its child when its parent ends, and it reaps each one as it exits; when CMD has
ended, it ends what CMD left running (SIGTERM, then SIGKILL) and reaps it before it writes
``exit``. The supervisor itself is reaped by its parent: ``start`` leaves it to the
container's PID 1 (sshd and init programs reap), so where the engine can start it (``docker
exec -d``, whose process the engine's shim reaps outside the container) chipperf runs
``supervise`` that way and ``started`` instead of ``start``.
"""

from __future__ import annotations

import ctypes
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import BinaryIO

PR_SET_CHILD_SUBREAPER = 36     # linux/prctl.h


def main(argv: list[str]) -> int:
    if len(argv) >= 3 and argv[0] == "start":
        return _start(Path(argv[1]), argv[2:])
    if len(argv) >= 3 and argv[0] == "supervise":
        return _supervise(Path(argv[1]), argv[2:])
    if len(argv) == 3 and argv[0] == "started":
        return _started(Path(argv[1]), float(argv[2]))
    if len(argv) == 3 and argv[0] == "stop":
        return _stop(Path(argv[1]), float(argv[2]))
    print("usage: python3 -m chipperf_runtime.launch.detach start STATE CMD [ARG ...] | "
          "supervise STATE CMD [ARG ...] | started STATE TIMEOUT_S | stop STATE GRACE_S",
          file=sys.stderr)
    return 2


def _start(state: Path, command: list[str]) -> int:
    state.mkdir(parents=True, exist_ok=False)
    proc = subprocess.Popen([sys.executable, "-m", "chipperf_runtime.launch.detach", "supervise",
                             str(state), *command], start_new_session=True,
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, close_fds=True)
    return _started(state, 30, proc)


def _started(state: Path, timeout_s: float, proc: subprocess.Popen | None = None) -> int:
    """Wait until the supervisor in ``state`` runs; print its pid (exit 0), or say it did not."""
    deadline = time.monotonic() + timeout_s
    while not (state / "pid").exists() and time.monotonic() < deadline \
            and (proc is None or proc.poll() is None):
        time.sleep(0.02)
    if not (state / "pid").exists():
        ended = "" if proc is None else f" (exit {proc.poll()})"
        print(f"the supervisor in {state} did not start within {timeout_s:.0f} s{ended}",
              file=sys.stderr)
        return 1
    print((state / "pid").read_text().strip())
    return 0


def _supervise(state: Path, command: list[str]) -> int:
    if os.getpgid(0) != os.getpid():       # `docker exec -d` starts it in the exec's group
        os.setsid()
    signal.signal(signal.SIGTERM, signal.SIG_IGN)   # the group's SIGTERM is for the command
    _become_subreaper()
    _write(state / "started_ms", str(int(time.time() * 1000)))
    with open(state / "output.log", "ab") as out:
        try:
            child = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=out,
                                     stderr=subprocess.STDOUT,
                                     preexec_fn=lambda: signal.signal(signal.SIGTERM,
                                                                      signal.SIG_DFL))
        except OSError as exc:
            out.write(f"cannot start {command[0]}: {exc}\n".encode())
            code = 127
        else:
            _write(state / "pid", str(os.getpid()))
            code = child.returncode = _reap_until(child.pid)
        finished_ms = int(time.time() * 1000)
        _end_leftovers(out)
    if not (state / "pid").exists():
        _write(state / "pid", str(os.getpid()))
    _write(state / "finished_ms", str(finished_ms))
    _write(state / "exit", str(128 - code if code < 0 else code))
    return 0


def _become_subreaper() -> bool:
    """prctl(PR_SET_CHILD_SUBREAPER, 1): orphans below this process become its children."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
    except (OSError, AttributeError):       # not Linux: only the command itself is reaped
        return False


def _reap_until(pid: int) -> int:
    """Reap every child as it exits until ``pid`` has; its status as Popen gives it."""
    while True:
        try:
            done, status = os.waitpid(-1, 0)
        except ChildProcessError:
            return -signal.SIGKILL
        if done == pid:
            return os.waitstatus_to_exitcode(status)


def _end_leftovers(out: BinaryIO, grace_s: float = 5) -> None:
    """What the command left running (now this subreaper's descendants): SIGTERM, then after
    ``grace_s`` SIGKILL; every one reaped, and named in ``out``."""
    for sig, wait_s in ((signal.SIGTERM, grace_s), (signal.SIGKILL, None)):
        left = _descendants(os.getpid())
        if left:
            out.write(f"[detach] the command ended and left {len(left)} process(es) running: "
                      f"{', '.join(map(_named, left))}; sending {sig.name}\n".encode())
            out.flush()
        _signal_all(left, sig)
        if _reap_all(wait_s):
            return


def _named(pid: int) -> str:
    try:
        return f"{pid} ({Path(f'/proc/{pid}/comm').read_text().strip()})"
    except OSError:
        return str(pid)


def _reap_all(wait_s: float | None) -> bool:
    """Reap children until none is left (True), or ``wait_s`` has passed (False)."""
    deadline = None if wait_s is None else time.monotonic() + wait_s
    while True:
        try:
            done, _ = os.waitpid(-1, 0 if deadline is None else os.WNOHANG)
        except ChildProcessError:
            return True
        if done == 0:
            if time.monotonic() >= deadline:  # type: ignore[operator]
                return False
            time.sleep(0.05)


def _descendants(root: int) -> list[int]:
    """Pids below ``root``, from /proc (empty where there is none)."""
    parents: dict[int, list[int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue                          # ended while we looked
        parents.setdefault(int(fields[1]), []).append(int(stat.parent.name))
    found, todo = [], [root]
    while todo:
        below = parents.get(todo.pop(), [])
        found.extend(below)
        todo.extend(below)
    return found


def _signal_all(pids: list[int], sig: int) -> None:
    for pid in pids:
        try:
            os.kill(pid, sig)
        except ProcessLookupError:
            pass


def _stop(state: Path, grace_s: float) -> int:
    """SIGTERM the group (the supervisor ignores it), after ``grace_s`` SIGKILL everything below
    the supervisor (it reaps them and writes ``exit``), after 5 s more the supervisor too."""
    try:
        pid = int((state / "pid").read_text())
    except (OSError, ValueError):
        return 0
    if not _supervises(pid, state):   # gone (the container restarted): its pid is another's
        return 0
    steps = ((lambda: os.killpg(pid, signal.SIGTERM), grace_s),
             (lambda: _signal_all(_descendants(pid), signal.SIGKILL), 5.0),
             (lambda: os.kill(pid, signal.SIGKILL), 5.0))
    for send, wait_s in steps:
        try:
            send()
        except ProcessLookupError:
            return 0
        deadline = time.monotonic() + wait_s
        while time.monotonic() < deadline and not (state / "exit").exists():
            time.sleep(0.1)
        if (state / "exit").exists():
            return 0
    _write(state / "finished_ms", str(int(time.time() * 1000)))   # it went with SIGKILL:
    _write(state / "exit", str(128 + signal.SIGKILL))             # say so for it
    return 0


def _supervises(pid: int, state: Path) -> bool:
    """Whether ``pid`` is the supervisor of ``state`` (not a process that took its number)."""
    try:
        argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return False
    return b"supervise" in argv and str(state).encode() in argv


def _write(path: Path, text: str) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text + "\n")
    os.replace(tmp, path)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
