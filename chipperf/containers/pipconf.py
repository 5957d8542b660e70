"""The master's own pip settings, for image builds that should fetch packages the way it does.

With ``PIP_FROM_MASTER = True`` (the default), every pip setting the test config
leaves empty is taken from the master: its PIP_* environment first, then
``pip config list``. Local find-links directories and the CA bundle are copied
into the build context; ``file://`` indexes cannot be reached from a build and
are skipped.
"""

from __future__ import annotations

import dataclasses
import os
import re
import subprocess
import sys
from typing import Any

from chipperf.config.model import ImageBuildConfig

_KEYS = {"index-url": "pip_index_url", "extra-index-url": "pip_extra_index_urls",
         "find-links": "pip_find_links", "cert": "ca_bundle"}


def master_pip_settings() -> dict[str, str]:
    """pip option name -> value, as pip on this machine would use them."""
    found: dict[str, str] = {}
    try:
        out = subprocess.run([sys.executable, "-m", "pip", "config", "list"], capture_output=True,
                             text=True, timeout=60).stdout
    except (OSError, subprocess.TimeoutExpired):
        out = ""
    for line in out.splitlines():
        match = re.match(r"^[^.]*\.([a-z-]+)='(.*)'$", line.strip())
        if match and match.group(1) in _KEYS:
            found[match.group(1)] = match.group(2)
    for option in _KEYS:
        value = os.environ.get("PIP_" + option.upper().replace("-", "_"))
        if value:
            found[option] = value
    return found


@dataclasses.dataclass(frozen=True)
class MasterPip:
    """The build config after filling from the master, and what the filling did."""

    config: ImageBuildConfig
    filled: tuple[str, ...] = ()    # ImageBuildConfig fields taken from the master
    skipped: tuple[str, ...] = ()   # "option value: why it was not used"


def with_master_pip(cfg: ImageBuildConfig, settings: dict[str, str]) -> ImageBuildConfig:
    return fill_from_master(cfg, settings).config


def fill_from_master(cfg: ImageBuildConfig, settings: dict[str, str]) -> MasterPip:
    changes: dict[str, Any] = {}
    skipped: list[str] = []
    for option, field in _KEYS.items():
        if option not in settings or getattr(cfg, field):
            continue
        raw = settings[option]
        value, why = _usable(field, raw)
        if isinstance(value, tuple):
            skipped += [f"{option} {v}: {why}" for v in raw.split() if v not in value]
        elif value is None:
            skipped.append(f"{option} {raw}: {why}")
        if value:
            changes[field] = value
    return MasterPip(dataclasses.replace(cfg, **changes), tuple(changes), tuple(skipped))


def _usable(field: str, value: str) -> tuple[Any, str]:
    """The part of the master's ``value`` a build can use, and why the rest cannot be."""
    if field in ("pip_extra_index_urls", "pip_find_links"):
        return (tuple(v for v in value.split() if not v.startswith("file://")),
                "a file:// index cannot be reached from an image build")
    if field == "pip_index_url" and value.startswith("file://"):
        return None, "a file:// index cannot be reached from an image build"
    if field == "ca_bundle" and not os.path.isfile(value):
        return None, "not a file on the master"
    return value, ""
