"""A process that outlives the command that started it, with its exit status on disk.

IN_CONTAINER_LAUNCH (chipperf.containers.incontainer) runs a node's case and monitor as
processes in a container that already exists, over SSH, where no engine keeps a container's
state. This module keeps it in a state dir instead::

    python3 -m chipperf_runtime.launch.detach start STATE CMD [ARG ...]   prints the supervisor's pid
    python3 -m chipperf_runtime.launch.detach stop STATE GRACE_S          SIGTERM the group, then KILL

``start`` returns at once. A supervisor in a new session (its pid is the process group) writes
``STATE/pid`` and ``started_ms``, runs CMD with stdout and stderr in ``STATE/output.log``,
then writes ``finished_ms`` and ``exit`` (CMD's status; 128+N for signal N), each file
atomically. ``stop`` signals the whole group, so a launcher's ranks go with it.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path


def main(argv: list[str]) -> int:
    if len(argv) >= 3 and argv[0] == "start":
        return _start(Path(argv[1]), argv[2:])
    if len(argv) >= 3 and argv[0] == "supervise":
        return _supervise(Path(argv[1]), argv[2:])
    if len(argv) == 3 and argv[0] == "stop":
        return _stop(Path(argv[1]), float(argv[2]))
    print("usage: python3 -m chipperf_runtime.launch.detach start STATE CMD [ARG ...] | "
          "stop STATE GRACE_S", file=sys.stderr)
    return 2


def _start(state: Path, command: list[str]) -> int:
    state.mkdir(parents=True, exist_ok=False)
    proc = subprocess.Popen([sys.executable, "-m", "chipperf_runtime.launch.detach", "supervise",
                             str(state), *command], start_new_session=True,
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, close_fds=True)
    deadline = time.monotonic() + 30
    while not (state / "pid").exists() and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.02)
    if not (state / "pid").exists():
        print(f"the supervisor of {command[0]} did not start (exit {proc.poll()})",
              file=sys.stderr)
        return 1
    print(proc.pid)
    return 0


def _supervise(state: Path, command: list[str]) -> int:
    signal.signal(signal.SIGTERM, signal.SIG_IGN)   # the group's SIGTERM is for the command
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
            code = child.wait()
    if not (state / "pid").exists():
        _write(state / "pid", str(os.getpid()))
    _write(state / "finished_ms", str(int(time.time() * 1000)))
    _write(state / "exit", str(128 - code if code < 0 else code))
    return 0


def _stop(state: Path, grace_s: float) -> int:
    try:
        pgid = int((state / "pid").read_text())
    except (OSError, ValueError):
        return 0
    deadline = time.monotonic() + grace_s
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(pgid, sig)
        except ProcessLookupError:
            return 0
        while time.monotonic() < deadline and not (state / "exit").exists():
            time.sleep(0.1)
        if (state / "exit").exists():
            return 0
        deadline = time.monotonic() + 5
    if not (state / "exit").exists():     # the supervisor went with SIGKILL: say so for it
        _write(state / "finished_ms", str(int(time.time() * 1000)))
        _write(state / "exit", str(128 + signal.SIGKILL))
    return 0


def _write(path: Path, text: str) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text + "\n")
    os.replace(tmp, path)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
