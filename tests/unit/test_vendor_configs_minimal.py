"""A vendor case config holds only what differs (STYLE.md 16): no assignment in a
``config_common.py`` restates the case's ``_base.py`` default, and no per-topology
``config_<chip>x<nnodes>x<nproc>.py`` restates what it inherits (its ``config_common.py``
value, else the default). Read as data, as plan reads them."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from chipperf.config.pyconfig import read_py_config
from chipperf_runtime.vendors import vendor_names

REPO = Path(__file__).resolve().parents[2]
# chipperf's own; those carried from FlagPerf (first line "# From FlagOpen/FlagPerf...",
# scripts/flagperf_vendor_cases.py) are FlagPerf's files with FlagPerf's values, restated or not
CONFIGS = sorted(p for p in (REPO / "training").glob("*/*-*/config/config_*.py")
                 if not p.read_text().startswith("# From FlagOpen/FlagPerf"))


def inherited(config: Path) -> dict:
    model, family = config.parent.parent.name.rsplit("-", 1)
    values = read_py_config(REPO / "training/benchmarks" / model / family / "config/_base.py",
                            (REPO,)).public()
    common = config.parent / "config_common.py"
    if config != common and common.is_file():
        values = {**values, **read_py_config(common, (REPO,)).public()}
    return values


def restated(config: Path) -> list[str]:
    values, before = read_py_config(config, (REPO,)).public(), inherited(config)
    names = [n.targets[0].id for n in ast.parse(config.read_text()).body
             if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name)]
    return [f"{config.relative_to(REPO)}: {name} = {values[name]!r} is what it inherits: remove it"
            for name in names if name in values and name in before
            and values[name] == before[name] and type(values[name]) is type(before[name])]


def test_the_scan_covers_every_vendor() -> None:
    vendors = {p.relative_to(REPO / "training").parts[0] for p in CONFIGS}
    shipping = {v for v in vendor_names() if any((REPO / "training" / v).glob("*/config/config_*.py"))}
    assert len(CONFIGS) > 100 and len(shipping) >= 4 and vendors == shipping


@pytest.mark.parametrize("config", CONFIGS, ids=lambda p: str(p.relative_to(REPO / "training")))
def test_a_vendor_config_sets_only_what_differs(config: Path) -> None:
    assert restated(config) == []
