"""FlagPerf's IN_CONTAINER_LAUNCH: cases run in containers that already exist.

With ``IN_CONTAINER_LAUNCH = True`` in test_conf (or FlagPerf's switch, the master's
environment ``EXEC_IN_CONTAINER=True``) the cluster config's HOSTS are containers the user made
(by hand, or Kubernetes), reached over SSH like hosts: chipperf builds no image and creates,
stops or removes no container. Each node's case command and monitor run as processes inside
the container it reaches, with the plan's environment; the result tree is the same.

With ``IN_CONTAINER_NAME`` as well, HOSTS are hosts and each one's running container of that
name is where the processes run (``chipperf.remote.container.ContainerHost``: ``docker exec``
over the host's SSH); everything below is the same, except that each process's supervisor is
started with ``docker exec -d`` so that the engine reaps it (no zombie is left in a container
whose PID 1 reaps nothing, such as ``sleep infinity`` without ``--init``).

``InContainerEngine`` stands where a host's Docker engine stands (``Host.docker()``), so the
round logic is one for both modes: ``containers.run`` starts the spec's command through
``chipperf_runtime.launch.detach`` (image, mounts, devices and other docker options are the
container's own already and are not applied), and the returned ``Process`` answers ``wait``,
``reload``/``attrs``, ``stop``, ``remove`` and ``logs`` from the process's state dir
(``STATE_ROOT/<run id>/<name>``) on that container. The user makes sure the containers have
the case's software, the devices, the data dirs and SSH between them (FlagPerf's terms).
"""

from __future__ import annotations

import logging
import time
from datetime import datetime, timezone
from typing import Any, Mapping

from chipperf.errors import HostError
from chipperf.remote.container import ContainerHost

log = logging.getLogger("chipperf")

STATE_ROOT = "/tmp/chipperf-incontainer"
LABEL_RUN = "chipperf.run"
POLL_S = 1.0


class InContainerEngine:
    """The calls chipperf makes of a host's engine, answered inside an existing container."""

    def __init__(self, host: Any):
        self.host = host
        self.containers = Processes(host)

    def version(self) -> dict[str, Any]:
        """What preflight records of a host's engine: here the container's Python and kernel."""
        try:
            python = self.host.run(["python3", "--version"], check=False)
        except HostError:          # LocalHost: no such command
            python = None
        if python is None or not python.ok:
            raise HostError(self.host.name, "IN_CONTAINER_LAUNCH: no python3 in this container",
                            "run the cases' image there (it has python3 and the frameworks)")
        uname = self.host.run(["uname", "-s", "-r", "-m"], check=False).stdout.split()
        os_name, kernel, arch = (uname + [None, None, None])[:3]
        inside = getattr(self.host, "container", None)   # chipperf.remote.container
        where = f" in container {inside}" if inside else ""
        return {"Version": f"none: IN_CONTAINER_LAUNCH{where} ({python.stdout.strip()})",
                "Os": os_name, "KernelVersion": kernel, "Arch": arch}

    def ping(self) -> bool:
        return True

    def close(self) -> None:
        """Nothing to close: the container's processes are reached through the host's SSH."""


class Processes:
    """``engine.containers``: run and list this run's processes in the container."""

    def __init__(self, host: Any):
        self.host = host

    def run(self, image: str, *, command: list[str], name: str, environment: Mapping[str, str],
            labels: Mapping[str, str], **docker_only: Any) -> Process:
        state = f"{STATE_ROOT}/{labels.get(LABEL_RUN, 'run')}/{name}"
        python_path = environment.get("PYTHONPATH", "")
        detach = ["env", *(f"{k}={v}" for k, v in environment.items()), "python3", "-m",
                  "chipperf_runtime.launch.detach"]
        if isinstance(self.host, ContainerHost):   # the engine reaps the supervisor
            self.host.makedirs(state.rsplit("/", 1)[0])
            if not self.host.make_dir(state):
                raise HostError(self.host.name, f"IN_CONTAINER_LAUNCH: {state} exists already "
                                                f"in container {self.host.container!r}")
            self.host.run_detached([*detach, "supervise", state, *command])
            result = self.host.run([*detach, "started", state, "30"], timeout=60, check=False)
        else:
            result = self.host.run([*detach, "start", state, *command], timeout=60, check=False)
        if not result.ok:
            raise HostError(self.host.name, f"IN_CONTAINER_LAUNCH: starting {name} failed: "
                            f"{(result.stderr or result.stdout).strip()[-300:]}")
        log.debug("[%s] %s: process %s in the container", self.host.name, name,
                  result.stdout.strip())
        return Process(self.host, name, state, python_path)

    def list(self, all: bool = True, filters: Mapping[str, str] | None = None) -> list[Process]:
        """This run's processes (``filters={"label": "chipperf.run=<id>"}``), or every run's
        (``{"label": "chipperf.run"}``: what `chipperf clean` looks for)."""
        label, _, run_id = (filters or {}).get("label", "").partition("=")
        if label != LABEL_RUN:
            return []
        where, depth = (f"{STATE_ROOT}/{run_id}", "1") if run_id else (STATE_ROOT, "2")
        found = self.host.run(["find", where, "-mindepth", depth, "-maxdepth", depth,
                               "-type", "d"], check=False)
        return [Process(self.host, path.rsplit("/", 1)[1], path, "")
                for path in found.stdout.split() if found.ok]


class Process:
    """One detached process, shaped like the docker SDK's Container where chipperf uses it."""

    def __init__(self, host: Any, name: str, state: str, python_path: str):
        self.host, self.name, self.state, self.python_path = host, name, state, python_path
        self.attrs: dict[str, Any] = {"State": {}}
        self.labels = {LABEL_RUN: state.rsplit("/", 2)[-2]}   # STATE_ROOT/<run id>/<name>

    @property
    def status(self) -> str:
        """Docker's words: "running" until the supervisor wrote the exit status."""
        return "exited" if self.host.exists(f"{self.state}/exit") else "running"

    def wait(self, timeout: float | None = None) -> dict[str, int]:
        deadline = None if timeout is None else time.monotonic() + timeout
        while not self.host.exists(f"{self.state}/exit"):
            if deadline is not None and time.monotonic() >= deadline:
                raise TimeoutError(f"{self.name} still running after {timeout:.0f} s")
            time.sleep(POLL_S)
        code = self._number("exit", None)
        return {"StatusCode": -1 if code is None else code}

    def reload(self) -> None:
        code = self._number("exit", None)
        self.attrs = {"State": {"StartedAt": _stamp(self._number("started_ms", None)),
                                "FinishedAt": _stamp(self._number("finished_ms", None)),
                                "ExitCode": code, "Running": code is None}}

    def stop(self, timeout: int = 10) -> None:
        env = ["env", f"PYTHONPATH={self.python_path}"] if self.python_path else []
        self.host.run([*env, "python3", "-m", "chipperf_runtime.launch.detach", "stop", self.state,
                       str(timeout)], timeout=timeout + 30, check=False)

    def remove(self, force: bool = False) -> None:
        if force and not self.host.exists(f"{self.state}/exit"):
            self.stop(0)
        self.host.remove_tree(self.state)
        self.host.run(["rmdir", self.state.rsplit("/", 1)[0]], check=False)  # the run's, if empty

    def logs(self, tail: int = 50) -> bytes:
        try:
            data = self.host.read_tail(f"{self.state}/output.log", 65536)
        except HostError:
            return b""
        return b"\n".join(data.splitlines()[-tail:])

    def _number(self, name: str, default: int | None) -> int | None:
        try:
            return int(self.host.read_tail(f"{self.state}/{name}", 64).decode().strip())
        except (HostError, ValueError):
            return default


# Where the monitor's RAPL source (chipperf_runtime.monitors.rapl) looks inside the container:
# the container's own CHIPPERF_POWERCAP_ROOT, else /sys/class/powercap; flat or nested tree.
# Prints `readable ROOT`, `unreadable FILE` or `absent ROOT`.
RAPL_PROBE = """\
root=${CHIPPERF_POWERCAP_ROOT:-/sys/class/powercap}
for f in "$root"/intel-rapl*/energy_uj "$root"/intel-rapl/intel-rapl*/energy_uj; do
  [ -e "$f" ] || continue
  if cat "$f" >/dev/null 2>&1; then echo "readable $root"; else echo "unreadable $f"; fi
  exit 0
done
echo "absent $root"
"""
POWERCAP_HINT = ("-v /sys/devices/virtual/powercap:/host/powercap:ro "
                 "-e CHIPPERF_POWERCAP_ROOT=/host/powercap")


def node_power(host: Any) -> tuple[bool, str]:
    """Whether the monitor can read RAPL energy where the node's processes run (chipperf
    mounts nothing into an existing container), and a line saying so, naming the container."""
    inside = getattr(host, "container", None)          # chipperf.remote.container
    where = f"inside container {inside!r}" if inside else "inside the container that is the host"
    said = host.run(["sh", "-c", RAPL_PROBE], check=False).stdout.split(None, 1)
    word, path = (said + ["", ""])[:2] if len(said) == 2 else ("absent", "?")
    path = path.strip()
    if word == "readable":
        return True, f"RAPL energy read {where} from {path}"
    if word == "unreadable":
        return False, (f"RAPL counter {path} is not readable {where} (the kernel lets only root "
                       "read it): CPU package power and energy are not measured; run the "
                       "container's processes as root")
    return False, (f"no RAPL energy counter {where} under {path} (the host has none, or Docker "
                   "hides /sys/devices/virtual/powercap from containers): CPU package power "
                   "and energy are not measured; start the container with "
                   f"`{POWERCAP_HINT}` to measure them")


def _stamp(epoch_ms: int | None) -> str:
    """Docker's time form, as ``runtime.lifetime`` reads it."""
    if epoch_ms is None:
        return ""
    when = datetime.fromtimestamp(epoch_ms / 1000, tz=timezone.utc)
    return when.strftime("%Y-%m-%dT%H:%M:%S.") + f"{epoch_ms % 1000:03d}Z"
