"""Suite registry: a suite is the module ``chipperf/suites/<name>.py`` defining ``SUITE``,
beside the repository's ``<name>/`` folder of its cases (adding a suite is that module and
that folder; there is no list to edit)."""

from __future__ import annotations

import importlib
import pkgutil
from functools import cache

from chipperf.suites.suite import ConfigFiles, Loaded, Overrides, Suite

__all__ = ["ConfigFiles", "DEFAULT_SUITE", "Loaded", "Overrides", "Suite", "get_suite",
           "suite_names", "suite_of"]

_NOT_SUITES = {"suite", "catalogue"}
# the suite a command means when it names none, and a run.json without "suite" (FlagPerf's)
DEFAULT_SUITE = "training"


def suite_names() -> list[str]:
    """Every suite: the default first, then the model suites, then the spec suites, by name
    (training, inference, base, operation)."""
    return sorted(_found(), key=lambda name: (name != DEFAULT_SUITE, get_suite(name).measures_spec,
                                              name))


@cache
def _found() -> frozenset[str]:
    return frozenset(m.name for m in pkgutil.iter_modules(__path__)
                     if m.name not in _NOT_SUITES and not m.name.startswith("_"))


@cache
def get_suite(name: str) -> Suite:
    if name not in _found():
        raise KeyError(name)
    suite: Suite = importlib.import_module(f"chipperf.suites.{name}").SUITE
    return suite


def suite_of(name: object) -> Suite:
    """The suite a result names; training's for none or one chipperf lacks (a FlagPerf run
    directory has no suite, and its figures are read as training's)."""
    return get_suite(name if isinstance(name, str) and name in _found() else DEFAULT_SUITE)
