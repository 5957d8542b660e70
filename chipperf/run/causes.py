"""A failed node's reason named for its cause, where the evidence says which (issue 27):

- a port already in use: a rank's or the launcher's log says EADDRINUSE (torch's
  ``DistNetworkError: ... name: EADDRINUSE, message: address already in use``, older torch's
  ``errno: 98 - Address already in use``), or gRPC could not bind the JAX coordinator's
  ``[::]:PORT`` (jax 0.10.2 logs ``Failed to add port to server`` and the process then dies of
  SIGSEGV: a listener on that port on any address, 127.0.0.1 included, is enough; an IPv6-less
  namespace and a port just freed by a previous coordinator are not); the process that holds
  it is named when the host's ``ss`` can tell;
- the host's container engine stopped or gone: SSH still answers and the engine does not
  (a dockerd stopped normally mid-round ends its containers, which looks like a launcher that
  exited 1). Such a host gets no later rounds in the run.

The parsers are pure; the probes ask the host one small thing each, only for a failed node.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable

PORT, ENGINE = "port", "engine"   # NodeState.kind of a failure named here

_IN_USE = re.compile(r"EADDRINUSE|address already in use|Failed to add port to server",
                     re.IGNORECASE)
# "port: 29500, useIpv6: false, code: -98, name: EADDRINUSE" (torch >= 2.2), "failed to bind
# to [::]:29500 (errno: 98 - Address already in use)" (older torch), or gRPC's "No address
# added out of total 1 resolved for '[::]:29871'" (the JAX coordinator)
_PORT = (re.compile(r"\bport:\s*(\d{1,5})\b"), re.compile(r":(\d{1,5})\s*\(errno:\s*98\b"),
         re.compile(r"resolved for '[^']*:(\d{1,5})'"))
_SS_USER = re.compile(r'\(\("([^"]+)",pid=(\d+)')
LOG_TAIL_BYTES = 64 * 1024


@dataclass(frozen=True)
class PortClash:
    line: str             # the log line that says so
    port: int | None      # when the line names it


def port_clash(lines: Iterable[str]) -> PortClash | None:
    """The first line saying a port is already in use, with the port when it names one."""
    for line in lines:
        if _IN_USE.search(line):
            for pattern in _PORT:
                match = pattern.search(line)
                if match:
                    return PortClash(line.strip(), int(match.group(1)))
            return PortClash(line.strip(), None)
    return None


def holder(ss_output: str) -> str | None:
    """'python3 (pid 4242)' from ``ss -Htlnp 'sport = :PORT'``; None when it does not say
    (not root, no listener left, no ss)."""
    match = _SS_USER.search(ss_output)
    return f"{match.group(1)} (pid {match.group(2)})" if match else None


def port_reason(host: str, where: str, clash: PortClash, held_by: str | None) -> str:
    port = f"port {clash.port}" if clash.port is not None else "a port the case listens on"
    by = f", held by {held_by}" if held_by else ""
    return (f"{port} on {host} is already in use{by} (EADDRINUSE in {where}): another run or "
            "program listens on it: stop it, or set MASTER_PORT in the cluster config to a "
            "free port")


def log_tail(path: Path) -> list[str]:
    """The last LOG_TAIL_BYTES of a log, as lines ([] when it is not there)."""
    try:
        with open(path, "rb") as handle:
            handle.seek(0, 2)
            handle.seek(max(0, handle.tell() - LOG_TAIL_BYTES))
            return handle.read().decode(errors="replace").splitlines()
    except OSError:
        return []


def find_port_clash(node_dir: Path) -> tuple[str, PortClash] | None:
    """(log file name, clash) from the node's launcher and rank logs."""
    for log_file in [node_dir / "launcher.log", *sorted(node_dir.glob("rank*.out.log"))]:
        clash = port_clash(log_tail(log_file))
        if clash is not None:
            return log_file.name, clash
    return None


def port_holder(host: Any, port: int | None) -> str | None:
    """Who listens on ``port`` on the host, asked once with ss; None when unknown."""
    if port is None:
        return None
    try:
        found = host.run(["ss", "-Htlnp", f"sport = :{port}"], timeout=15, check=False)
    except Exception:   # the reason is named without it
        return None
    return holder(found.stdout) if found.ok else None


def engine_gone(host: Any, timeout_s: float = 15.0) -> str | None:
    """Why the host's container engine does not answer while the host does over SSH; None
    when the engine answers (to the SDK or to its own client on the host), the host does
    not, or the engine cannot be asked (a container as host, IN_CONTAINER_LAUNCH)."""
    try:
        api = getattr(host.docker(), "api", None)
        if api is None:
            return None
        api.ping()
        return None
    except Exception as exc:   # the engine did not answer: does the host?
        problem = f"{type(exc).__name__}: {exc}"
    try:
        if not host.run(["true"], timeout=timeout_s, check=False).ok:
            return None
    except Exception:   # the host itself is away: that is its loss, named elsewhere
        return None
    said = _engine_words(host, timeout_s)
    return None if said is None else (said or problem)


def _engine_words(host: Any, timeout_s: float) -> str | None:
    """What the engine's own client says on the host (e.g. "Cannot connect to the Docker
    daemon at unix:///var/run/docker.sock. Is the docker daemon running?"); None when it got
    an answer from the engine, "" when it could not be asked (no docker client there)."""
    try:
        said = host.run(["docker", "version", "--format", "{{.Server.Version}}"],
                        timeout=timeout_s, check=False)
    except Exception:
        return ""
    if said.ok:
        return None
    return "" if said.exit_code == 127 else (said.stderr or said.stdout).strip()[-300:]


def engine_reason(host: str, why: str, before: str) -> str:
    return (f"the container engine on {host} stopped or is gone (the host answers over SSH, "
            f"its Docker engine does not: {why}): start it again (e.g. `systemctl start "
            f"docker`); no later round of this run starts there ({before})")
