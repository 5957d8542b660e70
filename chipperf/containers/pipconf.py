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


def with_master_pip(cfg: ImageBuildConfig, settings: dict[str, str]) -> ImageBuildConfig:
    changes: dict[str, Any] = {}
    for option, field in _KEYS.items():
        if option not in settings or getattr(cfg, field):
            continue
        value = settings[option]
        if field in ("pip_extra_index_urls", "pip_find_links"):
            parts = tuple(v for v in value.split() if not v.startswith("file://"))
            if parts:
                changes[field] = parts
        elif field == "pip_index_url" and value.startswith("file://"):
            continue
        elif field == "ca_bundle" and not os.path.isfile(value):
            continue
        else:
            changes[field] = value
    return dataclasses.replace(cfg, **changes)
