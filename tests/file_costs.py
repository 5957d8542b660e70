"""Longest file first: the order the cases and e2e tiers hand their files to pytest-xdist.

Under ``--dist loadfile`` a worker takes a whole file at a time, and pytest-xdist orders the
files by their number of tests (most first), so a slow file of one to three tests was handed
out last and ran alone while the other worker idled. ``.ci/run`` passes
``--no-loadscope-reorder`` to those tiers and ``tests/conftest.py`` orders their files by the
seconds below (the longest-processing-time-first rule): a file not listed counts as the
slowest (a new file runs early rather than last). The figures are each file's summed test
time from a run of the tier on two workers (the command beside each table); they need only be
right in their order of size, so refresh them when a file's cost changes by a lot.
"""

from __future__ import annotations

from pathlib import Path

# OMP_NUM_THREADS=1 python -m pytest tests/cases -n 2 --dist loadfile
#   --ignore tests/cases/test_selftest.py --junitxml=cases.xml   (2026-12-02, loaded machine)
CASES: dict[str, float] = {}

# python -m pytest tests/e2e -n 2 --dist loadfile --junitxml=e2e.xml
E2E: dict[str, float] = {}

TIERS = {"cases": CASES, "e2e": E2E}


def order(files: list[Path]) -> list[Path]:
    """The distinct files (``tests/<tier>/test_x.py``) in the order to hand them out: a file
    not in its tier's table first, then by cost, longest first; ties keep the given order."""
    def cost(path: Path) -> float:
        return TIERS.get(path.parent.name, {}).get(path.name, float("inf"))
    return sorted(dict.fromkeys(files), key=lambda path: -cost(path))


def from_junit(path: str) -> dict[str, float]:
    """File name -> summed seconds of its tests, from pytest's ``--junitxml`` file."""
    import xml.etree.ElementTree as ET

    totals: dict[str, float] = {}
    for case in ET.parse(path).getroot().iter("testcase"):
        # classname: tests.cases.test_x or tests.cases.test_x.TestSomething
        name = next((part + ".py" for part in case.get("classname", "").split(".")
                     if part.startswith("test_")), case.get("classname", ""))
        totals[name] = totals.get(name, 0.0) + float(case.get("time", 0))
    return dict(sorted(totals.items(), key=lambda kv: -kv[1]))


if __name__ == "__main__":   # python tests/file_costs.py cases.xml: the table to paste above
    import sys

    for file, seconds in from_junit(sys.argv[1]).items():
        print(f'    "{file}": {seconds:.0f},')
