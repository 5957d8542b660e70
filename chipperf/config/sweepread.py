"""SWEEPS read from a test config (chipperf.config.sweep says what a sweep is)."""

from __future__ import annotations

import dataclasses
from typing import Mapping

from chipperf.config.fields import Fields
from chipperf.config.flagperf_aliases import chipperf_case_name
from chipperf.config.model import CaseEntry, CaseKey
from chipperf.config.sweep import Sweep, as_sweep


def read_sweeps(f: Fields, cases: tuple[CaseEntry, ...], suite: str) -> dict[str, Sweep]:
    """SWEEPS: case key (as the plan names it) -> its Sweep; every bad entry said at once."""
    raw = f.get("sweeps", lambda v: v, {})
    if not isinstance(raw, Mapping):
        f.fail("sweeps", f"a {type(raw).__name__}, not a mapping",
               "write SWEEPS = {'<case key>': {'<batch parameter>': [1, 2, 4]}}")
        return {}
    listed = {str(e.key) for e in cases}
    sweeps = {}
    for key, value in raw.items():
        case = _named(str(key), suite)
        if case not in listed:
            f.fail("sweeps", f"{key!r} is not a case key of CASES",
                   "key each sweep by a case key CASES lists")
            continue
        try:
            sweeps[case] = as_sweep(value)
        except ValueError as exc:
            f.fail("sweeps", f"[{key!r}]: {exc}",
                   "give {'<parameter>': [value, ...]} for its batch size, sequence length or precision")
    return sweeps


def _named(key: str, suite: str) -> str:
    """The key as the plan names its case (FlagPerf's model names mapped to chipperf's)."""
    try:
        parsed = CaseKey.parse(key)
    except ValueError:
        return key
    return str(dataclasses.replace(parsed, model=chipperf_case_name(suite, parsed.model)))
