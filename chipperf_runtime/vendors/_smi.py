"""Helpers for the pure parsers of vendor SMI tools' text output (standard library only).

A parser turns one run's stdout into ``(devices, problems)``: a dict per device with the
sample keys of ``AcceleratorSampler.read`` and a list of what it could not read. The
helpers here split box-drawn tables and read numbers with their units.
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Sequence
from typing import Any, Optional

_MIB = 2**20
_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")


def table_cells(line: str) -> list[str]:
    """The cells of a ``| a | b |`` table row, stripped; [] for a rule or a blank line."""
    text = line.strip()
    if not text.startswith("|"):
        return []
    return [cell.strip() for cell in text.strip("|").split("|")]


def number(text: str, what: str) -> float:
    """The first number in ``text`` (``'55W'``, ``'36 C'``, ``'0%'``); ValueError naming ``what``."""
    found = _NUMBER.search(text)
    if not found:
        raise ValueError(f"{what}: no number in {text!r}")
    return float(found.group())


def used_total_mib(text: str, what: str) -> tuple[int, int]:
    """``'513MiB / 32768MiB'`` or ``'3416 / 65536'`` (MiB) -> (used bytes, total bytes)."""
    values = _NUMBER.findall(text)
    if len(values) != 2:
        raise ValueError(f"{what}: expected 'used / total' in {text!r}")
    return int(float(values[0]) * _MIB), int(float(values[1]) * _MIB)


def memory(used: int, total: int) -> dict[str, Any]:
    return {"mem_used_bytes": used, "mem_total_bytes": total}


def first_tool(candidates: Sequence[str]) -> Optional[str]:
    """The first of ``candidates`` (names or absolute paths) that can be run here."""
    return next((c for c in candidates if shutil.which(c)), None)


def no_devices(devices: list[dict[str, Any]], problems: list[str], tool: str) -> list[str]:
    """Problems plus 'no device found' when the output held no device row at all."""
    if not devices and not problems:
        return [f"no device row found in {tool} output"]
    return problems
