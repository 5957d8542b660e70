"""Run a Python module as ``__main__`` and end the process without interpreter teardown.

``python -m chipperf.launchers.quickexit MODULE ARG ...`` runs MODULE (e.g.
``torch.distributed.run``) with ``sys.argv = [MODULE, ARG ...]``, then flushes stdout,
stderr and logging and calls ``os._exit`` with the module's exit status. A process that
has imported torch spends about half a second tearing the interpreter down after its
work is done (measured in the pytorch image: a one-rank torchrun of a script that
all-reduces one tensor returned 0.65 s sooner with the rank exiting this way); the
launcher waits for its ranks before it returns, so nothing is cut short. An uncaught
exception prints its traceback and exits 1, as Python would.

Standard library only: this module runs inside case containers.
"""

from __future__ import annotations

import logging
import os
import runpy
import sys
import traceback


def main(argv: list[str]) -> None:
    if not argv:
        sys.exit("usage: python -m chipperf.launchers.quickexit MODULE [ARG ...]")
    sys.argv = list(argv)
    code = 0
    try:
        runpy.run_module(argv[0], run_name="__main__", alter_sys=True)
    except SystemExit as exc:
        code = exit_status(exc.code)
    except BaseException:  # noqa: BLE001 - reported like the interpreter would, then exit 1
        traceback.print_exc()
        code = 1
    end(code)


def exit_status(code: object) -> int:
    """``sys.exit``'s argument as a process exit status (a message means 1, printed)."""
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    print(code, file=sys.stderr)
    return 1


def end(code: int) -> None:
    """Flush what Python buffers, then leave without running the interpreter's teardown."""
    logging.shutdown()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    os._exit(code)


if __name__ == "__main__":
    main(sys.argv[1:])
