"""Run a command with its stdout+stderr sent to a file, by exec (no extra process).

``python -m chipperf_runtime.launch.rankexec DIR/rank{RANK}.out.log CMD ...``
expands ``{NAME}`` from the environment (RANK, LOCAL_RANK, NODE_RANK ...), opens
the file for appending, points fds 1 and 2 at it and execs CMD, so the rank keeps
its pid and its launcher sees its real exit status and signals. It takes no
options of its own, so launchers that parse the rest of their command line
(torchrun does, by prefix) never mistake its arguments for theirs.
"""

from __future__ import annotations

import os
import sys


def main(argv: list[str]) -> None:
    if len(argv) < 2:
        sys.exit("usage: python -m chipperf_runtime.launch.rankexec LOG_PATH CMD [ARG ...]")
    path = argv[0].format_map(os.environ)
    command = argv[1:]
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    sys.stdout.flush()
    sys.stderr.flush()
    os.dup2(fd, 1)
    os.dup2(fd, 2)
    os.close(fd)
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    os.execvp(command[0], command)


if __name__ == "__main__":
    main(sys.argv[1:])
