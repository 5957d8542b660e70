"""Case and monitor containers on one host's engine (docker SDK)."""

from __future__ import annotations

import logging
from typing import Any

from chipperf.containers.spec import LABEL_RUN, ContainerSpec, run_kwargs
from chipperf.errors import HostError

__all__ = ["LABEL_RUN", "ContainerSpec", "run_kwargs", "start"]
log = logging.getLogger("chipperf")


def start(client: Any, spec: ContainerSpec, host: str) -> Any:
    import docker.errors

    try:
        return client.containers.run(spec.image, **run_kwargs(spec))
    except docker.errors.APIError as exc:
        raise HostError(host, f"starting container {spec.name} failed: {exc.explanation or exc}",
                        _start_fix(str(exc))) from exc


def _start_fix(text: str) -> str:
    if "could not select device driver" in text or "nvidia" in text.lower():
        return "install the NVIDIA container toolkit on the host, or use a vendor whose devices it has"
    if "Conflict" in text:
        return "a container of that name exists: remove leftovers with `chipperf clean`"
    return ""


def exit_code(container: Any, timeout: float | None) -> int:
    """Block until the container exits (or raise on timeout / lost engine)."""
    result = container.wait(timeout=timeout)
    return int(result.get("StatusCode", -1))


def lifetime(container: Any) -> dict[str, Any]:
    """When the container's main process started and ended (epoch ms), its exit code, and
    whether its memory limit (docker --memory) had the kernel kill a process in it."""
    try:
        container.reload()
        state = container.attrs["State"]
    except Exception as exc:
        return {"error": str(exc)}
    return {"started_ms": _epoch_ms(state.get("StartedAt", "")),
            "finished_ms": _epoch_ms(state.get("FinishedAt", "")),
            "exit_code": state.get("ExitCode"), "running": bool(state.get("Running")),
            "oom_killed": bool(state.get("OOMKilled"))}    # the kernel killed a process of it


def _epoch_ms(stamp: str) -> int | None:
    """Docker's RFC 3339 time with nanoseconds ('2026-01-01T10:00:00.123456789Z')."""
    from datetime import datetime, timezone

    if not stamp or stamp.startswith("0001-"):
        return None
    head, _, frac = stamp.rstrip("Z").partition(".")
    frac = frac.split("+")[0].split("-")[0]
    when = datetime.strptime(head, "%Y-%m-%dT%H:%M:%S").replace(tzinfo=timezone.utc)
    return int(when.timestamp() * 1000) + int((frac + "000")[:3])


def stop(container: Any, grace_s: float = 10) -> None:
    """Stop (SIGTERM, then SIGKILL after the grace period) and remove; missing is fine."""
    import docker.errors

    try:
        container.stop(timeout=int(grace_s))
    except docker.errors.NotFound:
        return
    except Exception as exc:
        log.debug("stopping %s: %s", getattr(container, "name", container), exc)
    remove(container)


def remove(container: Any) -> bool:
    """Force-remove; False (said in the debug log) when the engine could not be asked: a
    round's teardown goes on to collect the node's files, and the run's teardown keeps the
    host's work dir so that `chipperf clean`/`collect` or the next run removes it."""
    import docker.errors

    try:
        container.remove(force=True)
    except docker.errors.NotFound:
        pass
    except Exception as exc:  # the engine or its host went away
        log.debug("removing %s: %s", getattr(container, "name", container), exc)
        return False
    return True


def logs_tail(container: Any, lines: int = 50) -> str:
    try:
        return container.logs(tail=lines).decode(errors="replace")
    except Exception as exc:  # the engine may be gone with its host
        return f"(no logs: {exc})"


def remove_run_containers(client: Any, run_id: str) -> list[str]:
    """Every container the run left on this engine, force-removed; returns their names."""
    found = client.containers.list(all=True, filters={"label": f"{LABEL_RUN}={run_id}"})
    kept = [c.name for c in found if not remove(c)]
    if kept:
        raise HostError(getattr(client, "name", "engine"), f"could not remove {', '.join(kept)}")
    return [c.name for c in found]

