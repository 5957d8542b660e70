"""What one container is, decided at plan time: image, command, environment, mounts, devices
and the remaining docker options, as one frozen value.

The plan builds one per node for the case and one for its monitor sidecar
(``chipperf.containers.containerplan``); the run starts exactly these (``chipperf.containers.runtime``)
and ``chipperf plan`` prints them with the ``docker run`` line that starts the same
container by hand.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass, replace
from typing import Any, Mapping

LABEL_RUN = "chipperf.run"


@dataclass(frozen=True)
class Mount:
    source: str                 # on the host
    target: str                 # in the container
    mode: str = "rw"            # "rw" | "ro"
    if_present: bool = False    # a host sensor path: mounted only where the host has it


@dataclass(frozen=True)
class Device:
    path: str                   # /dev/x on the host
    inside: str = ""            # in the container (default: the same path)
    perms: str = "rwm"
    if_present: bool = False

    def text(self) -> str:
        return f"{self.path}:{self.inside or self.path}:{self.perms}"


@dataclass(frozen=True)
class ContainerSpec:
    name: str
    image: str                              # the repository until the run knows its tag
    command: tuple[str, ...]
    env: Mapping[str, str]
    mounts: tuple[Mount, ...]
    run_id: str
    shm_size: str = "16g"
    devices: tuple[Device, ...] = ()
    # docker SDK keywords of containers.run() beyond the above (vendor + ACCE_CONTAINER_OPT):
    # device_requests, ipc_mode, ulimits, privileged, cap_add, mounts of anonymous volumes ...
    options: Mapping[str, Any] | None = None
    pid_host: bool = False

    def tagged(self, tag: str) -> "ContainerSpec":
        """The spec with the image tag the run built (the plan knows the repository only)."""
        return replace(self, image=tag)

    def on_host(self, present: frozenset[str] | set[str]) -> "ContainerSpec":
        """Without the sensor mounts and devices this host lacks (``present``: the host paths
        it has); a variable that pointed into a dropped mount goes with it."""
        dropped = {m.target for m in self.mounts if m.if_present and m.source not in present}
        return replace(
            self, mounts=tuple(m for m in self.mounts if m.target not in dropped),
            devices=tuple(d for d in self.devices if not d.if_present or d.path in present),
            env={k: v for k, v in self.env.items() if v not in dropped})

    def sensor_paths(self) -> tuple[str, ...]:
        """The host paths mounted only where present (what preflight looks for)."""
        return tuple(dict.fromkeys([m.source for m in self.mounts if m.if_present] +
                                   [d.path for d in self.devices if d.if_present]))


def run_kwargs(spec: ContainerSpec) -> dict[str, Any]:
    """The keyword arguments of the docker SDK's ``containers.run()`` for ``spec`` (pure)."""
    kwargs = dict(spec.options or {})
    if spec.pid_host:
        kwargs["pid_mode"] = "host"
    if spec.devices:
        kwargs["devices"] = [d.text() for d in spec.devices]
    return {"command": list(spec.command), "name": spec.name, "detach": True,
            "network_mode": "host", "shm_size": spec.shm_size, "environment": dict(spec.env),
            "volumes": {m.source: {"bind": m.target, "mode": m.mode} for m in spec.mounts},
            "labels": {LABEL_RUN: spec.run_id}, **kwargs}


def docker_run_argv(spec: ContainerSpec) -> list[str]:
    """The ``docker run`` command that starts the same container by hand on its host."""
    argv = ["docker", "run", "--detach", "--name", spec.name, "--network", "host",
            "--shm-size", spec.shm_size, "--label", f"{LABEL_RUN}={spec.run_id}"]
    if spec.pid_host:
        argv += ["--pid", "host"]
    for name, value in spec.env.items():
        argv += ["--env", f"{name}={value}"]
    for m in spec.mounts:
        argv += ["--volume", f"{m.source}:{m.target}:{m.mode}"]
    for d in spec.devices:
        argv += ["--device", d.text()]
    argv += option_words(spec.options or {})
    return argv + [spec.image, *spec.command]


def docker_run_line(spec: ContainerSpec) -> str:
    return shlex.join(docker_run_argv(spec))


def option_words(options: Mapping[str, Any]) -> list[str]:
    """docker SDK keywords back to ``docker run`` options (the inverse of
    ``chipperf.containers.options.parse_cli_options``)."""
    words: list[str] = []
    for key, value in options.items():
        words += _OPTION_WORDS.get(key, _unknown)(key, value)
    return words


def _gpus(_: str, requests: Any) -> list[str]:
    words = []
    for r in requests:
        ids, count = r.get("DeviceIDs") or [], r.get("Count", 0)
        caps = [c for group in (r.get("Capabilities") or []) for c in group]
        which = f"device={','.join(ids)}" if ids else ("all" if count == -1 else str(count))
        if caps and caps != ["gpu"]:
            which = f'"capabilities={",".join(caps)}",{which}' if ids else \
                f"{which},capabilities={','.join(caps)}"
        words += ["--gpus", which]
    return words


def _ulimits(_: str, limits: Any) -> list[str]:
    return [w for u in limits for w in ("--ulimit", f"{u['Name']}={u['Soft']}:{u['Hard']}")]


def _anonymous(_: str, mounts: Any) -> list[str]:
    return [w for m in mounts for w in ("--volume", m["Target"])]


def _each(flag: str) -> Any:
    return lambda _, values: [w for v in values for w in (flag, str(v))]


def _value(flag: str) -> Any:
    return lambda _, value: [flag, str(value)]


def _switch(flag: str) -> Any:
    return lambda _, on: [f"{flag}={'true' if on else 'false'}"]


def _unknown(key: str, value: Any) -> list[str]:
    return [f"<docker SDK {key}={value!r}>"]


_OPTION_WORDS: dict[str, Any] = {
    "device_requests": _gpus, "ulimits": _ulimits, "mounts": _anonymous,
    "cap_add": _each("--cap-add"), "cap_drop": _each("--cap-drop"),
    "security_opt": _each("--security-opt"), "group_add": _each("--group-add"),
    "ipc_mode": _value("--ipc"), "uts_mode": _value("--uts"), "pid_mode": _value("--pid"),
    "runtime": _value("--runtime"), "privileged": _switch("--privileged"),
    "init": _switch("--init"), "mem_limit": _value("--memory"),
    "memswap_limit": _value("--memory-swap"),
}
