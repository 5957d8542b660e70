"""Vendor registry: a vendor is the module ``chipperf_runtime/vendors/<name>.py`` defining ``VENDOR``."""

from __future__ import annotations

import functools
import importlib
import pkgutil

from chipperf_runtime.vendors.base import ChipSpec, HardwareValidation, SamplerUnavailable, Vendor

__all__ = ["ChipSpec", "HardwareValidation", "SamplerUnavailable", "Vendor", "get_vendor",
           "hardware_status", "vendor_names"]

_NOT_VENDORS = {"base"}


def vendor_names() -> list[str]:
    return list(_vendor_modules())


@functools.lru_cache(maxsize=1)
def _vendor_modules() -> tuple[str, ...]:
    """The vendor modules, listed once per process (a plan asks for every node of every round)."""
    return tuple(sorted(m.name for m in pkgutil.iter_modules(__path__)
                        if m.name not in _NOT_VENDORS and not m.name.startswith("_")))


def get_vendor(name: str) -> Vendor:
    if name not in vendor_names():
        raise KeyError(name)
    module = importlib.import_module(f"chipperf_runtime.vendors.{name}")
    return module.VENDOR


def hardware_status(vendor: str, chip: str | None = None) -> tuple[bool | None, str]:
    """(ran, one line) for plan, cases and the report: has chipperf's path for this vendor
    (and chip) run on real hardware here? ``ran`` is None for a vendor chipperf lacks."""
    if vendor not in vendor_names():
        return None, f"vendor {vendor!r} is not one of chipperf's: no hardware status"
    validation = get_vendor(vendor).validated_on_hardware
    where = f"{vendor}/{chip}" if chip else vendor
    if validation.covers(chip):
        return True, f"{where}: ran on real hardware here ({validation.note})"
    if validation.ran:
        return False, (f"{where}: NOT run on real hardware here with this chip (ran with "
                       f"{', '.join(validation.chips or ())}: {validation.note})")
    return False, f"{where}: NOT validated on real hardware here ({validation.note})"
