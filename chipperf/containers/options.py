"""Extra container options written the docker-CLI way (ACCE_CONTAINER_OPT) -> docker SDK kwargs.

FlagPerf's vendors write their options as a ``docker run`` fragment (``--gpus all``,
``--device=/dev/xpu0 ...``, ``-v /opt/hyhal:/opt/hyhal``, ``--env X=all``...). Each one
either maps onto a keyword of the docker SDK's ``containers.run()`` or is refused here,
named, so that plan time reports it: nothing is dropped silently.

What the SDK call gets beyond its own keywords (``chipperf.containers.runtime.start``
consumes them): ``volumes_extra`` (bind mounts, host path -> bind dict) and
``environment`` is merged under the plan's own variables. chipperf always runs with the
host network, detached, and removes its containers itself; ``--net=host``, ``--detach``
and ``--rm`` are accepted as already true, any other network is refused.
"""

from __future__ import annotations

import re
import shlex
from typing import Any, Callable

# Variables the plan sets for every rank: an option may not override them.
RESERVED_ENV = ("MASTER_ADDR", "MASTER_PORT", "NNODES", "NODE_RANK", "NPROC_PER_NODE",
                "WORLD_SIZE", "PYTHONPATH", "PYTHONUNBUFFERED")
_SIZE = re.compile(r"^\d+(\.\d+)?[bkmgBKMG]?$")

Apply = Callable[[dict[str, Any], str, str], "str | None"]


def parse_cli_options(text: str) -> tuple[dict[str, Any], list[str]]:
    """(docker SDK kwargs, problems) for a string like ' --gpus all --ipc=host'."""
    try:
        words = shlex.split(text or "")
    except ValueError as e:
        return {}, [f"cannot split {text!r} into words: {e}"]
    kwargs: dict[str, Any] = {}
    problems: list[str] = []
    i = 0
    while i < len(words):
        flag, inline = _flag(words[i])
        i += 1
        if flag in _SWITCHES:
            problem = _SWITCHES[flag](kwargs, flag, inline if inline is not None else "true")
        elif flag in _VALUED:
            if inline is None:
                if i >= len(words) or words[i].startswith("-"):
                    problems.append(f"{flag} needs a value")
                    continue
                inline, i = words[i], i + 1
            problem = _VALUED[flag](kwargs, flag, inline)
        else:
            problem = (f"{flag}: {_REFUSED[flag]}" if flag in _REFUSED else
                       f"{flag} is not an option chipperf can pass to the container "
                       f"(supported: {', '.join(sorted({*_SWITCHES, *_VALUED}))})")
            if inline is None and i < len(words) and not words[i].startswith("-"):
                i += 1  # its value, if it has one: one problem per option
        if problem:
            problems.append(problem)
    return kwargs, problems


def vendor_options(text: str) -> dict[str, Any]:
    """A vendor module's own option string as SDK kwargs; a problem in it is a bug."""
    kwargs, problems = parse_cli_options(text)
    if problems:
        raise ValueError(f"vendor container options {text!r}: " + "; ".join(problems))
    return kwargs


def _flag(word: str) -> tuple[str, str | None]:
    if word.startswith("--") and "=" in word:
        flag, value = word.split("=", 1)
        return flag, value
    if word.startswith("-") and not word.startswith("--") and len(word) > 2 and word[:2] in ("-v", "-e"):
        return word[:2], word[2:]
    return word, None


def _bool(value: str) -> bool | None:
    return {"true": True, "1": True, "false": False, "0": False}.get(value.lower())


def _switch(key: str) -> Apply:
    def apply(kwargs: dict[str, Any], flag: str, value: str) -> str | None:
        on = _bool(value)
        if on is None:
            return f"{flag}={value}: write true or false"
        kwargs[key] = on
        return None
    return apply


def _already(kwargs: dict[str, Any], flag: str, value: str) -> str | None:
    """Options chipperf honours by construction (detached, removed after collection)."""
    return None if _bool(value) is not False else f"{flag}={value}: chipperf always does this"


def _gpus(kwargs: dict[str, Any], flag: str, value: str) -> str | None:
    """``all``, a count or ``device=0,1``, optionally ``,capabilities=utility`` (docker's
    form; default: gpu) -> one device request."""
    import docker.types

    spec, _, caps = value.strip("'\"").partition(",capabilities=")
    capabilities = [caps.split(";") if caps else ["gpu"]]
    if spec == "all" or spec.isdigit():
        request = docker.types.DeviceRequest(count=-1 if spec == "all" else int(spec),
                                             capabilities=capabilities)
    elif spec.startswith("device="):
        ids = [d for d in spec[len("device="):].split(",") if d]
        if not ids:
            return f"{flag} {value!r}: name at least one device after device="
        request = docker.types.DeviceRequest(device_ids=ids, capabilities=capabilities)
    else:
        return f"{flag} {value!r}: use 'all', a count, or device=0,1 (then ,capabilities=...)"
    kwargs["device_requests"] = [request]
    return None


def _device(kwargs: dict[str, Any], flag: str, value: str) -> str | None:
    parts = value.split(":")
    if not parts[0].startswith("/dev/") or len(parts) > 3:
        return f"{flag} {value!r}: write it as /dev/host[:/dev/container[:rwm]]"
    host = parts[0]
    inside = parts[1] if len(parts) > 1 and parts[1] else host
    perms = parts[2] if len(parts) > 2 else "rwm"
    kwargs.setdefault("devices", []).append(f"{host}:{inside}:{perms}")
    return None


def _append(key: str) -> Apply:
    def apply(kwargs: dict[str, Any], flag: str, value: str) -> str | None:
        kwargs.setdefault(key, []).append(value)
        return None
    return apply


def _set(key: str) -> Apply:
    def apply(kwargs: dict[str, Any], flag: str, value: str) -> str | None:
        kwargs[key] = value
        return None
    return apply


def _namespace(key: str, allowed: tuple[str, ...]) -> Apply:
    def apply(kwargs: dict[str, Any], flag: str, value: str) -> str | None:
        if value not in allowed:
            return f"{flag}={value}: only {' or '.join(allowed)} is supported"
        kwargs[key] = value
        return None
    return apply


def _network(kwargs: dict[str, Any], flag: str, value: str) -> str | None:
    if value != "host":
        return (f"{flag}={value}: chipperf runs every container on the host network "
                "(ranks rendezvous on host ports); only host is accepted")
    return None


def _ulimit(kwargs: dict[str, Any], flag: str, value: str) -> str | None:
    import docker.types

    name, _, limits = value.partition("=")
    soft, _, hard = limits.partition(":")
    try:
        kwargs.setdefault("ulimits", []).append(
            docker.types.Ulimit(name=name, soft=int(soft), hard=int(hard or soft)))
    except ValueError:
        return f"{flag} {value!r}: write it as name=soft[:hard] with integer limits"
    return None


def _volume(kwargs: dict[str, Any], flag: str, value: str) -> str | None:
    parts = value.split(":")
    if len(parts) == 1 and parts[0].startswith("/"):
        # Docker's meaning of `-v /path`: an anonymous volume at /path (not a bind mount).
        import docker.types

        kwargs.setdefault("mounts", []).append(
            docker.types.Mount(target=parts[0], source=None, type="volume"))
        return None
    if len(parts) not in (2, 3) or not parts[1].startswith("/"):
        return f"{flag} {value!r}: write it as /host/path:/container/path[:ro]"
    mode = parts[2] if len(parts) == 3 else "rw"
    if mode not in ("ro", "rw"):
        return f"{flag} {value!r}: mode must be ro or rw"
    binds = kwargs.setdefault("volumes_extra", {})
    if parts[0] in binds:
        return f"{flag} {value!r}: {parts[0]} is mounted twice"
    binds[parts[0]] = {"bind": parts[1], "mode": mode}
    return None


def _env(kwargs: dict[str, Any], flag: str, value: str) -> str | None:
    name, eq, setting = value.partition("=")
    if not eq or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
        return f"{flag} {value!r}: write it as NAME=value"
    if name in RESERVED_ENV or name.startswith("CHIPPERF_"):
        return f"{flag} {name}: the plan sets this variable for every rank"
    kwargs.setdefault("environment", {})[name] = setting
    return None


def _size(key: str) -> Apply:
    """--shm-size, and --memory / --memory-swap (a cap whose crossing the kernel answers by
    killing a process of the container: Docker's OOMKilled, a sweep's ``oom`` point)."""
    def apply(kwargs: dict[str, Any], flag: str, value: str) -> str | None:
        if not _SIZE.match(value):
            return f"{flag}={value}: write a size such as 32G or 512m"
        kwargs[key] = value
        return None
    return apply


_SWITCHES: dict[str, Apply] = {
    "--privileged": _switch("privileged"), "--init": _switch("init"),
    "--rm": _already, "-d": _already, "--detach": _already,
}
_VALUED: dict[str, Apply] = {
    "--gpus": _gpus, "--device": _device, "--cap-add": _append("cap_add"),
    "--cap-drop": _append("cap_drop"), "--security-opt": _append("security_opt"),
    "--group-add": _append("group_add"), "--ipc": _namespace("ipc_mode", ("host", "shareable")),
    "--uts": _namespace("uts_mode", ("host",)), "--pid": _namespace("pid_mode", ("host",)),
    "--net": _network, "--network": _network, "--ulimit": _ulimit, "-v": _volume,
    "--volume": _volume, "-e": _env, "--env": _env, "--shm-size": _size("shm_size"),
    "--memory": _size("mem_limit"), "-m": _size("mem_limit"),
    "--memory-swap": _size("memswap_limit"),
    "--runtime": _set("runtime"),
}
_REFUSED: dict[str, str] = {
    "-it": "chipperf containers are not interactive", "-i": "chipperf containers are not interactive",
    "-t": "chipperf containers are not interactive",
    "--name": "chipperf names its containers (run id, case, node)",
    "--entrypoint": "the case command is chipperf's", "-w": "the working directory is the case's",
    "--workdir": "the working directory is the case's",
    "--env-file": "a file on the master is not on the hosts: write --env NAME=value",
}
