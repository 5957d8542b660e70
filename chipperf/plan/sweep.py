"""A case's SWEEPS in its plan: the point each round runs (its rounds are the grid's points,
each the case key's repeat times), the point as the case's ``--set`` arguments, and every
reason a sweep cannot run (a value the case rejects, a grid the deadline cannot hold)."""

from __future__ import annotations

import json
from typing import Any, Mapping

from chipperf.config.model import CaseEntry, TestConfig
from chipperf.config.runlength import run_mode_problems
from chipperf.config.sweep import deadline_problem, estimate, point_label
from chipperf.config.vendorconfig import check_overrides
from chipperf.plan.case import RUNTIME, case_knobs, inference_sets
from chipperf.suites.catalogue import Catalogue
from chipperf.suites.suite import Overrides, Suite
from chipperf_runtime.inference.config import read_layers as read_inference_layers


def round_points(entry: CaseEntry, test: TestConfig) -> tuple[Mapping[str, Any], ...]:
    """Round N's point is element N-1: each point ``repeat`` times in a row; ({},) * repeat
    for a case without a sweep."""
    sweep = test.sweeps.get(str(entry.key))
    points = sweep.points() if sweep is not None else ({},)
    return tuple(p for p in points for _ in range(entry.key.repeat))


def point_args(point: Mapping[str, Any], suite: Suite) -> tuple[str, ...]:
    """The point as ``--set NAME=VALUE`` (after OVERRIDES, so the point wins): Python literals
    for a training case, YAML (JSON's spelling) for an inference case."""
    shown = json.dumps if suite.overrides is Overrides.YAML else repr
    return tuple(a for name, value in point.items() for a in ("--set", f"{name}={shown(value)}"))


def sweep_lines(entry: CaseEntry, test: TestConfig) -> list[str]:
    """What `chipperf plan` prints of a case's sweep: its grid, its estimate, its points."""
    sweep = test.sweeps.get(str(entry.key))
    if sweep is None:
        return []
    guess = estimate(sweep, entry.key.repeat, test.round_timeout_s, test.sweep_round_s)
    limit = f", SWEEP_DEADLINE {test.sweep_deadline_s:.0f} s" if test.sweep_deadline_s else ""
    lines = [f"  sweep     {sweep.shape} x repeat {entry.key.repeat}",
             f"  estimate  {guess.text()}{limit}"]
    for number, point in enumerate(sweep.points(), 1):
        first = (number - 1) * entry.key.repeat + 1
        rounds = f"round {first}" if entry.key.repeat == 1 else \
            f"rounds {first}-{first + entry.key.repeat - 1}"
        lines.append(f"  point {number:<3} {rounds}: {point_label(point)}")
    return lines


def sweep_problems(entry: CaseEntry, test: TestConfig, catalogue: Catalogue,
                   where: str) -> list[str]:
    """A point the case rejects (a parameter it lacks, a value of the wrong kind, a value its
    own run-length or config rules refuse), and a grid SWEEP_DEADLINE cannot hold."""
    sweep = test.sweeps.get(str(entry.key))
    if sweep is None:
        return []
    problems = [f"{where}: {p}" for p in _value_problems(entry, test, catalogue, sweep.points())]
    late = deadline_problem(str(entry.key), sweep, entry.key.repeat, test.round_timeout_s,
                            test.sweep_round_s, test.sweep_deadline_s)
    return list(dict.fromkeys(problems)) + ([f"{where}: {late}"] if late else [])


def _value_problems(entry: CaseEntry, test: TestConfig, catalogue: Catalogue,
                    points: tuple[dict[str, Any], ...]) -> list[str]:
    syntax = catalogue.suite.overrides
    if syntax is Overrides.NONE:
        return ["SWEEPS: only training and inference cases take parameters; remove the sweep"]
    key = entry.key
    if syntax is Overrides.YAML:
        return _inference_problems(entry, test, catalogue, points)
    case_dir = catalogue.cases.get((key.model, key.family))
    if case_dir is None:
        return []
    problems = []
    for param, value in dict.fromkeys((k, v) for p in points for k, v in p.items()):
        label = f"SWEEPS {param}"
        problems += [p.replace(f"{label}: OVERRIDES", "SWEEPS")
                     for p in check_overrides(case_dir / "config", {param: value}, label,
                                              (RUNTIME.parent,))]
    for point in points:
        knobs = {**case_knobs(entry, test, catalogue), **test.overrides, **point}
        problems += run_mode_problems(knobs, f"SWEEPS point {point_label(point)}")
    return problems


def _inference_problems(entry: CaseEntry, test: TestConfig, catalogue: Catalogue,
                        points: tuple[dict[str, Any], ...]) -> list[str]:
    key = entry.key
    config_dir = catalogue.vendor_cases.get((test.vendor, key.model, key.family))
    if config_dir is None:
        return []
    problems = []
    for param, value in dict.fromkeys((k, v) for p in points for k, v in p.items()):
        sets = (*inference_sets(test), f"{param}={json.dumps(value)}")
        _, _, found = read_inference_layers(config_dir, catalogue.vendor_config_name(key, test.vendor),
                                            sets, vendor_engines=True)
        problems += [f"SWEEPS {param}: {p}" for p in found]
    return list(dict.fromkeys(problems))
