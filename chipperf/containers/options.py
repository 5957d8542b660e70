"""Extra container options written the docker-CLI way (ACCE_CONTAINER_OPT) -> docker SDK kwargs.

Only options that make sense for a benchmark container are accepted; anything
else is a config problem, not silently dropped.
"""

from __future__ import annotations

import shlex
from typing import Any

SUPPORTED = "--gpus, --device, --privileged, --cap-add, --ipc, --ulimit, --security-opt, -v/--volume"


def parse_cli_options(text: str) -> tuple[dict[str, Any], list[str]]:
    """(docker SDK kwargs, problems) for a string like ' --gpus all --ipc=host'."""
    words = _split_equals(shlex.split(text or ""))
    kwargs: dict[str, Any] = {}
    problems: list[str] = []
    i = 0
    while i < len(words):
        flag = words[i]
        if flag == "--privileged":
            kwargs["privileged"] = True
            i += 1
            continue
        if i + 1 >= len(words):
            problems.append(f"{flag} needs a value")
            break
        value = words[i + 1]
        problem = _apply(kwargs, flag, value)
        if problem:
            problems.append(problem)
        i += 2
    return kwargs, problems


def _split_equals(words: list[str]) -> list[str]:
    out: list[str] = []
    for word in words:
        if word.startswith("--") and "=" in word:
            out += word.split("=", 1)
        else:
            out.append(word)
    return out


def _apply(kwargs: dict[str, Any], flag: str, value: str) -> str | None:
    import docker.types

    if flag == "--gpus":
        count = -1 if value == "all" else int(value) if value.isdigit() else None
        if count is None:
            return f"--gpus {value!r}: use 'all' or a number"
        kwargs["device_requests"] = [docker.types.DeviceRequest(count=count, capabilities=[["gpu"]])]
    elif flag == "--device":
        kwargs.setdefault("devices", []).append(value if ":" in value else f"{value}:{value}:rwm")
    elif flag == "--cap-add":
        kwargs.setdefault("cap_add", []).append(value)
    elif flag == "--ipc":
        kwargs["ipc_mode"] = value
    elif flag == "--security-opt":
        kwargs.setdefault("security_opt", []).append(value)
    elif flag == "--ulimit":
        name, _, limits = value.partition("=")
        soft, _, hard = limits.partition(":")
        try:
            kwargs.setdefault("ulimits", []).append(
                docker.types.Ulimit(name=name, soft=int(soft), hard=int(hard or soft)))
        except ValueError:
            return f"--ulimit {value!r}: write it as name=soft[:hard]"
    elif flag in ("-v", "--volume"):
        parts = value.split(":")
        if len(parts) < 2:
            return f"{flag} {value!r}: write it as /host/path:/container/path[:ro]"
        mode = parts[2] if len(parts) > 2 else "rw"
        kwargs.setdefault("volumes_extra", {})[parts[0]] = {"bind": parts[1], "mode": mode}
    else:
        return f"{flag} is not supported here (supported: {SUPPORTED})"
    return None
