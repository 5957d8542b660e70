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
    sweeps = {}
    for key, value in raw.items():
        case = _listed(str(key), suite, cases)
        if case is None:
            f.fail("sweeps", f"{key!r} is not a case key of CASES",
                   "key each sweep by a case key CASES lists")
            continue
        try:
            sweeps[case] = as_sweep(value)
        except ValueError as exc:
            f.fail("sweeps", f"[{key!r}]: {exc}",
                   "give {'<parameter>': [value, ...]} for its batch size, sequence length or precision")
    return sweeps


def _listed(key: str, suite: str, cases: tuple[CaseEntry, ...]) -> str | None:
    """The listed case key a SWEEPS key names, as the plan names it (FlagPerf's model names
    mapped to chipperf's; an inference host.yaml's ``model:framework``); None when none."""
    parts = key.split(":")
    if len(parts) == 2:
        model = chipperf_case_name(suite, parts[0])
        return next((str(e.key) for e in cases
                     if (e.key.model, e.key.framework) == (model, parts[1])), None)
    try:
        parsed = CaseKey.parse(key)
    except ValueError:
        return None
    named = str(dataclasses.replace(parsed, model=chipperf_case_name(suite, parsed.model)))
    return named if named in {str(e.key) for e in cases} else None
