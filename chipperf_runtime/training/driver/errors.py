"""Errors a case reports before (or instead of) training; str() is the user-facing message."""

from __future__ import annotations


class CaseError(Exception):
    """Base of every error the driver raises on purpose (exit status 2, no traceback)."""


class ConfigError(CaseError):
    """A bad case, vendor or command-line configuration value."""


class DataError(CaseError):
    """A missing or malformed data directory."""


class LaunchError(CaseError):
    """A bad launch environment (distributed variables) or arguments."""


class DeviceUnavailable(CaseError):
    """The vendor's device cannot be used here (the case never falls back to the CPU)."""


class Diverged(CaseError):
    """Training produced a non-finite loss: the case ends as failed, naming the step."""
