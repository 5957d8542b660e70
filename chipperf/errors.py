"""The small exception hierarchy. Exit codes are chosen only in the CLI."""

from __future__ import annotations

from typing import Mapping, Sequence


class ChipperfError(Exception):
    """Base of every error chipperf raises on purpose; str() is the user-facing message."""


class ConfigError(ChipperfError):
    """One or more configuration problems, each as 'where: what is wrong: how to fix'.
    ``kind`` names what was wrong in the heading: a command's arguments are not a
    configuration file (`chipperf report FILE` says "1 argument problem(s)")."""

    def __init__(self, problems: Sequence[str], kind: str = "configuration"):
        self.problems = tuple(problems)
        lines = "\n".join(f"  - {p}" for p in self.problems)
        super().__init__(f"{len(self.problems)} {kind} problem(s):\n{lines}")


class HostError(ChipperfError):
    """A step failed on one host (connection, command, file transfer, docker)."""

    def __init__(self, host: str, message: str, fix: str = "", unreachable: bool = False):
        self.host = host
        self.fix = fix
        self.unreachable = unreachable  # the host (or its engine) could not be reached
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


# The kinds of failure a node can end with, each with its own message (rounds, controller).
UNREACHABLE, EXITED, TIMEOUT, INTERNAL, HOST = "unreachable", "exited", "timeout", "internal", "host"


def failure(exc: BaseException, doing: str) -> tuple[str, str]:
    """(kind, message) for an exception met while ``doing`` something on a node."""
    import docker.errors
    import requests.exceptions

    if isinstance(exc, requests.exceptions.ReadTimeout):
        return TIMEOUT, (f"{doing}: the host's Docker engine gave no answer before the round "
                         f"deadline ({type(exc).__name__})")
    if isinstance(exc, docker.errors.NotFound):
        return EXITED, (f"{doing}: the container is gone (removed by someone else, or its "
                        f"Docker engine restarted without it): {exc.explanation or exc}")
    if is_connection_error(exc):
        return UNREACHABLE, (f"{doing}: lost contact with the host or its Docker engine "
                             f"({type(exc).__name__}: {exc}); the host may be down or cut off")
    if isinstance(exc, ChipperfError):
        return HOST, str(exc)
    return INTERNAL, (f"{doing}: internal error: {type(exc).__name__}: {exc} "
                      "(traceback in run.log)")


def is_connection_error(exc: BaseException | None) -> bool:
    """Whether ``exc`` or one of its causes is a lost or refused connection."""
    import paramiko
    import requests.exceptions
    import urllib3.exceptions

    # ChunkedEncodingError: the engine's answer stopped mid-way (seen when a host's dockerd
    # and sshd were killed during a wait, tests/e2e/test_fault_injection.py)
    kinds = (ConnectionError, EOFError, TimeoutError, paramiko.SSHException,
             requests.exceptions.ConnectionError, requests.exceptions.ChunkedEncodingError,
             urllib3.exceptions.ProtocolError)
    seen = 0
    while exc is not None and seen < 10:
        if isinstance(exc, kinds) or (isinstance(exc, HostError) and exc.unreachable):
            return True
        exc, seen = exc.__cause__ or exc.__context__, seen + 1
    return False


def log_failure(where: str, kind: str, reason: str, exc: BaseException | None) -> None:
    """One line for the failure; its traceback in run.log for an internal error, and on the
    console with --debug for any kind."""
    import logging

    log = logging.getLogger("chipperf")
    log.error("%s: %s", where, reason)
    if exc is not None:
        log.log(logging.ERROR if kind == INTERNAL else logging.DEBUG, "%s: traceback", where,
                exc_info=(type(exc), exc, exc.__traceback__))
