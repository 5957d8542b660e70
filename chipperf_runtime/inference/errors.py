"""The one error a case reports to the evaluator: what is wrong and how to fix it."""

from __future__ import annotations


class CaseError(Exception):
    """A problem the evaluator can fix (config, data, engine); the runner exits non-zero.

    The message says what is wrong and how to fix it; the runner prefixes the case name.
    """


class EngineBuildError(CaseError):
    """An engine failed to build (export, compile or session creation)."""
