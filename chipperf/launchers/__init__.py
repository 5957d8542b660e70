"""Launcher registry: framework family ``<name>`` is the module ``chipperf/launchers/<name>.py``
defining ``command(ctx)`` and ``env(ctx)`` (see ``base.Launcher``)."""

from __future__ import annotations

import importlib
import pkgutil
from types import ModuleType

from chipperf.launchers.base import LaunchContext, Launcher

__all__ = ["LaunchContext", "Launcher", "get_launcher", "launcher_names"]

_NOT_LAUNCHERS = {"base", "rankexec", "spawn"}


def launcher_names() -> list[str]:
    return sorted(m.name for m in pkgutil.iter_modules(__path__)
                  if m.name not in _NOT_LAUNCHERS and not m.name.startswith("_"))


def get_launcher(name: str) -> ModuleType:
    if name not in launcher_names():
        raise KeyError(name)
    return importlib.import_module(f"chipperf.launchers.{name}")
