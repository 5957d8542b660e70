"""``run_case``: the entry-point guard mapping a ``CaseError`` to a one-line error and exit 2."""

from __future__ import annotations

import sys
from typing import Callable, NoReturn

from driver.errors import CaseError

EXIT_CASE_ERROR = 2


def run_case(main: Callable[[], object]) -> NoReturn:
    """Run ``main``; a ``CaseError`` prints ``chipperf case error: ...`` (no traceback) and
    exits 2, anything else propagates (a traceback is the right report for a bug)."""
    try:
        main()
    except CaseError as exc:
        sys.stdout.flush()
        print(f"chipperf case error: {exc}", file=sys.stderr, flush=True)
        sys.exit(EXIT_CASE_ERROR)
    sys.exit(0)
