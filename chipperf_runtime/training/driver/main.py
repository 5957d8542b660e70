"""``run_case``: the entry-point guard mapping a ``CaseError`` to a one-line error and exit 2."""

from __future__ import annotations

import logging
import os
import sys
from typing import Callable, NoReturn

from chipperf_runtime.training.driver.errors import CaseError

EXIT_CASE_ERROR = 2


def run_case(main: Callable[[], object], quick_exit: bool = False) -> NoReturn:
    """Run ``main``; a ``CaseError`` prints ``chipperf case error: ...`` (no traceback) and
    exits 2, anything else propagates (a traceback is the right report for a bug).

    With ``quick_exit``, a ``main`` that returned ends the process with ``os._exit(0)`` once
    stdout, stderr and logging are flushed, skipping the interpreter's teardown (with torch
    loaded, about 0.6 s per rank per round; see chipperf_runtime/launch/quickexit.py). Only for
    cases whose ``main`` closes what it opened and has left every collective (e.g. after
    ``destroy_process_group``): anything still buffered in a file object is lost."""
    try:
        main()
    except CaseError as exc:
        sys.stdout.flush()
        print(f"chipperf case error: {exc}", file=sys.stderr, flush=True)
        sys.exit(EXIT_CASE_ERROR)
    if quick_exit:
        logging.shutdown()
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(0)
    sys.exit(0)
