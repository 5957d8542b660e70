"""The small exception hierarchy. Exit codes are chosen only in the CLI."""

from __future__ import annotations

from typing import Mapping, Sequence


class ChipperfError(Exception):
    """Base of every error chipperf raises on purpose; str() is the user-facing message."""


class ConfigError(ChipperfError):
    """One or more configuration problems, each as 'where: what is wrong: how to fix'."""

    def __init__(self, problems: Sequence[str]):
        self.problems = tuple(problems)
        lines = "\n".join(f"  - {p}" for p in self.problems)
        super().__init__(f"{len(self.problems)} configuration problem(s):\n{lines}")


class HostError(ChipperfError):
    """A step failed on one host (connection, command, file transfer, docker)."""

    def __init__(self, host: str, message: str, fix: str = ""):
        self.host = host
        self.fix = fix
        text = f"{host}: {message}"
        super().__init__(f"{text}: {fix}" if fix else text)


class GroupError(ChipperfError):
    """A step failed on some hosts of a group; carries every host's outcome."""

    def __init__(self, step: str, results: Mapping[str, object]):
        self.step = step
        self.results = dict(results)
        self.failures = {h: r for h, r in self.results.items() if isinstance(r, BaseException)}
        lines = "\n".join(f"  - {_describe(h, e)}" for h, e in self.failures.items())
        super().__init__(f"{step} failed on {len(self.failures)} of {len(self.results)} host(s):\n{lines}")


class ImageError(ChipperfError):
    """An image could not be built, found or shipped."""


def _describe(host: str, exc: BaseException) -> str:
    text = str(exc)
    return text if text.startswith(f"{host}:") else f"{host}: {text}"


class Interrupted(KeyboardInterrupt):
    """A stop asked by a signal: unwinds like Ctrl-C, and records which signal it was."""

    def __init__(self, signal_name: str):
        super().__init__(signal_name)
        self.signal_name = signal_name


def interruption(exc: BaseException) -> str:
    """'interrupted (SIGTERM)', 'interrupted (SIGHUP)', or 'interrupted (Ctrl-C)'."""
    return f"interrupted ({getattr(exc, 'signal_name', 'Ctrl-C')})"
