"""Vendor registry: a vendor is the module ``chipperf/vendors/<name>.py`` defining ``VENDOR``."""

from __future__ import annotations

import importlib
import pkgutil

from chipperf.vendors.base import ChipSpec, SamplerUnavailable, Vendor

__all__ = ["ChipSpec", "SamplerUnavailable", "Vendor", "get_vendor", "vendor_names"]

_NOT_VENDORS = {"base"}


def vendor_names() -> list[str]:
    return sorted(m.name for m in pkgutil.iter_modules(__path__)
                  if m.name not in _NOT_VENDORS and not m.name.startswith("_"))


def get_vendor(name: str) -> Vendor:
    if name not in vendor_names():
        raise KeyError(name)
    module = importlib.import_module(f"chipperf.vendors.{name}")
    return module.VENDOR
