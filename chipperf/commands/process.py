"""What every chipperf command sets up for its process: where its log lines go, and the
signals that unwind a run through its teardown."""

from __future__ import annotations

import logging
import signal
import sys

from chipperf.errors import Interrupted


def setup_logging(debug: bool) -> None:
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(asctime)s %(message)s", "%H:%M:%S"))
    root = logging.getLogger("chipperf")
    root.handlers[:] = [handler]
    root.setLevel(logging.DEBUG if debug else logging.INFO)
    if not debug:
        logging.getLogger("paramiko").setLevel(logging.CRITICAL)


def sigterm_as_interrupt() -> None:
    """SIGTERM, SIGHUP, and SIGINT even where the parent left it ignored (a background job of
    a shell script starts with SIGINT ignored, and Python then installs no Ctrl-C handler),
    unwind through the teardown like Ctrl-C; the run records which signal it was."""
    def handler(signum: int, frame: object) -> None:
        raise Interrupted(signal.Signals(signum).name)

    signal.signal(signal.SIGTERM, handler)
    signal.signal(signal.SIGHUP, handler)
    signal.signal(signal.SIGINT, signal.default_int_handler)
