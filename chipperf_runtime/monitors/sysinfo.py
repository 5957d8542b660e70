"""sys_info.json: what the node is (OS, kernel, CPU, memory, accelerators, Docker,
framework versions), collected once when the monitor starts.

Framework versions come from the installed distributions' metadata, without
importing the frameworks. Anything that cannot be found says why instead of
carrying a made-up value.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import os
import platform
import shutil
import socket
import subprocess
import sys
import tempfile
from collections.abc import Mapping
from importlib import metadata
from pathlib import Path
from typing import Any

from chipperf_runtime.monitors.mem import parse_meminfo
from chipperf_runtime.monitors.records import epoch_ms
from chipperf_runtime.monitors.source import read_text

# Framework -> distribution names that provide it, most usual first.
FRAMEWORKS: Mapping[str, tuple[str, ...]] = {
    "torch": ("torch",),
    "tensorflow": ("tensorflow", "tensorflow-cpu", "tensorflow-gpu", "tensorflow-intel"),
    "paddle": ("paddlepaddle", "paddlepaddle-gpu"),
    "deepspeed": ("deepspeed",),
    "onnxruntime": ("onnxruntime", "onnxruntime-gpu", "onnxruntime-openvino"),
}
DOCKER_SOCKET = "/var/run/docker.sock"


def parse_os_release(text: str) -> dict[str, str]:
    """Pure: /etc/os-release KEY="value" lines -> dict."""
    values = {}
    for line in text.splitlines():
        key, sep, value = line.partition("=")
        if sep and key.strip() and not key.startswith("#"):
            values[key.strip()] = value.strip().strip('"').strip("'")
    return values


def parse_cpuinfo(text: str) -> dict[str, Any]:
    """Pure: /proc/cpuinfo -> model, logical CPUs, sockets and physical cores when listed."""
    models, processors, sockets, cores = [], 0, set(), set()
    current: dict[str, str] = {}
    for line in [*text.splitlines(), ""]:
        key, sep, value = line.partition(":")
        if sep:
            current[key.strip()] = value.strip()
            continue
        if current:
            processors += "processor" in current
            models.append(current.get("model name") or current.get("Model")
                          or current.get("cpu model") or "")
            if "physical id" in current:
                sockets.add(current["physical id"])
                cores.add((current["physical id"], current.get("core id")))
            current = {}
    facts: dict[str, Any] = {"model": next((m for m in models if m), platform.processor()),
                             "logical_cpus": processors}
    if sockets:
        facts.update(sockets=len(sockets), physical_cores=len(cores))
    return facts


def framework_versions() -> dict[str, dict[str, str]]:
    found = {}
    for framework, distributions in FRAMEWORKS.items():
        found[framework] = {"unavailable": f"none of {', '.join(distributions)} is installed "
                                           f"for {sys.executable}"}
        for dist in distributions:
            with contextlib.suppress(metadata.PackageNotFoundError):
                found[framework] = {"distribution": dist, "version": metadata.version(dist)}
                break
    return found


def docker_version(timeout_s: float = 5.0) -> dict[str, Any]:
    """Docker client/server versions from the CLI, else from the engine's socket."""
    reasons = []
    cli = shutil.which("docker")
    if cli:
        facts, why = _docker_cli(cli, timeout_s)
        if facts:
            return facts
        reasons.append(why)
    else:
        reasons.append("docker CLI not on PATH")
    host = os.environ.get("DOCKER_HOST", "")
    path = host[len("unix://"):] if host.startswith("unix://") else DOCKER_SOCKET
    facts, why = _docker_socket(path, timeout_s)
    return facts or {"unavailable": "; ".join([*reasons, why])}


def _docker_cli(cli: str, timeout_s: float) -> tuple[dict[str, Any], str]:
    try:
        done = subprocess.run([cli, "version", "--format", "{{json .}}"], check=False,
                              capture_output=True, text=True, timeout=timeout_s,
                              stdin=subprocess.DEVNULL)
        answer = json.loads(done.stdout or "{}")
    except (OSError, subprocess.TimeoutExpired, ValueError) as e:
        return {}, f"docker version: {e}"
    server = answer.get("Server") or {}
    if not server:
        return {}, f"docker version: no server answered: {done.stderr.strip()[:200]}"
    return {"server_version": server.get("Version"), "api_version": server.get("ApiVersion"),
            "client_version": (answer.get("Client") or {}).get("Version"), "via": "cli"}, ""


class _UnixHTTPConnection(http.client.HTTPConnection):
    def __init__(self, path: str, timeout: float):
        super().__init__("localhost", timeout=timeout)
        self._path = path

    def connect(self) -> None:
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(self.timeout)
        self.sock.connect(self._path)


def _docker_socket(path: str, timeout_s: float) -> tuple[dict[str, Any], str]:
    if not os.path.exists(path):
        return {}, f"no Docker socket at {path}"
    connection = _UnixHTTPConnection(path, timeout_s)
    try:
        connection.request("GET", "/version")
        answer = json.loads(connection.getresponse().read() or b"{}")
    except (OSError, ValueError, http.client.HTTPException) as e:
        return {}, f"{path}: {e}"
    finally:
        connection.close()
    return {"server_version": answer.get("Version"), "api_version": answer.get("ApiVersion"),
            "via": "socket"}, ""


def collect(vendor: str, accelerators: Mapping[str, Any] | None) -> dict[str, Any]:
    """The whole sys_info document; ``accelerators`` is the vendor sampler's info."""
    uname = platform.uname()
    return {
        "collected_ms": epoch_ms(),
        "hostname": socket.gethostname(),
        "os": _os_name(),
        "kernel": {"system": uname.system, "release": uname.release, "version": uname.version,
                   "machine": uname.machine},
        "cpu": _file_facts("/proc/cpuinfo", parse_cpuinfo),
        "memory": _memory(),
        "accelerators": _accelerators(vendor, accelerators),
        "docker": docker_version(),
        "python": {"version": platform.python_version(), "executable": sys.executable},
        "frameworks": framework_versions(),
    }


def _accelerators(vendor: str, facts: Mapping[str, Any] | None) -> dict[str, Any]:
    if facts is None:
        return {"vendor": vendor, "count": 0,
                "note": f"vendor {vendor} has no accelerator telemetry (it runs on CPU cores)"}
    return {"vendor": vendor, **facts}


def _os_name() -> dict[str, Any]:
    release = _file_facts("/etc/os-release", parse_os_release)
    if "unavailable" in release:
        return release
    return {"name": release.get("PRETTY_NAME") or release.get("NAME"), "id": release.get("ID"),
            "version_id": release.get("VERSION_ID")}


def _memory() -> dict[str, Any]:
    info = _file_facts("/proc/meminfo", parse_meminfo)
    if "MemTotal" not in info:
        return {"unavailable": info.get("unavailable", "no MemTotal in /proc/meminfo")}
    return {"total_bytes": info["MemTotal"], "swap_total_bytes": info.get("SwapTotal")}


def _file_facts(path: str, parse: Any) -> dict[str, Any]:
    try:
        return parse(read_text(path))
    except OSError as e:
        return {"unavailable": f"cannot read {path}: {e}"}


def write_json_atomic(path: Path, value: Any) -> None:
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            json.dump(value, out, indent=2, default=str)
            out.write("\n")
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
