"""Shared pytest fixtures and markers for chipperf's tests.

Cluster fixtures (see tests/simcluster/README.md):
  sim_cluster   the simulated 3-host cluster (network namespaces with sshd + dockerd), built on demand
  local_docker  docker SDK client of the root-namespace ("master") Docker engine

CHIPPERF_SIM_HOSTS=h4,h5,h6 hands the tests those hosts only (brought up if missing), so two
test sessions on one machine can each have their own hosts (a fault test that kills h2's sshd
does not break another session's run on h2). Unset, a session has h1, h2, h3. Under
pytest-xdist each worker has its own consecutive share of them (unset: h1-h3 for gw0, h4-h6
for gw1, ...; tests/sim_hosts.py), so a worker's runs never take another worker's host.

Both FAIL (never skip) when the machine cannot provide them, so CI cannot go green
with its integration tests silently skipped.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.sim_hosts import default_host_names, worker_host_names

SIMCLUSTER_PY = Path(__file__).resolve().parent / "simcluster" / "simcluster.py"


def pytest_configure(config):
    config.addinivalue_line("markers", "integration: needs a real sshd and Docker engine on this machine")
    config.addinivalue_line("markers", "e2e: runs whole benchmark runs on the simulated cluster")


def _load_simcluster():
    """Import tests/simcluster/simcluster.py by path (works whatever the rootdir/import mode)."""
    name = "chipperf_tests_simcluster"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, SIMCLUSTER_PY)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


def _simcluster(*args: str, timeout: int = 600) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SIMCLUSTER_PY), *args], check=False,
                          capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL)


@dataclass(frozen=True)
class SimHost:
    name: str           # h1, h2, ...
    address: str        # 10.231.0.11, ...
    ssh_port: int
    docker_host: str    # unix:///run/chipperf-sim/hI/docker.sock (reachable from the root namespace)


@dataclass(frozen=True)
class SimCluster:
    hosts: tuple[SimHost, ...]
    ssh_user: str
    ssh_key: str
    known_hosts: str

    def host(self, name: str) -> SimHost:
        for h in self.hosts:
            if h.name == name:
                return h
        raise KeyError(name)


def _wanted_hosts(slurm_nodes: frozenset[str]) -> tuple[str, ...]:
    """This session's hosts (CHIPPERF_SIM_HOSTS, e.g. "h4,h5,h6", checked; unset: h1, h2, h3),
    or under pytest-xdist this worker's share of them (tests/sim_hosts.py)."""
    workers = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1"))
    names = tuple(n.strip() for n in os.environ.get("CHIPPERF_SIM_HOSTS", "").split(",") if n.strip())
    bad = [n for n in names if not (n.startswith("h") and n[1:].isdigit() and int(n[1:]) >= 1)]
    if bad:
        pytest.fail(f"CHIPPERF_SIM_HOSTS: {bad} are not host names h1, h2, ...", pytrace=False)
    try:
        return worker_host_names(names or default_host_names(workers, slurm_nodes),
                                 os.environ.get("PYTEST_XDIST_WORKER", ""), workers)
    except ValueError as e:
        pytest.fail(str(e), pytrace=False)


@pytest.fixture(scope="session")
def sim_cluster() -> SimCluster:
    """This session's (under xdist: this worker's) simulated hosts, built or repaired where not
    healthy (idempotent, kept up afterwards)."""
    sc = _load_simcluster()
    problems = sc.preflight()
    if problems:
        pytest.fail("this machine cannot host the simulated cluster: " + "; ".join(problems)
                    + " (see DEVELOPERS.md)", pytrace=False)
    status = _simcluster("status", timeout=120)
    try:
        current = json.loads(status.stdout)
    except ValueError:
        current = {"hosts": []}
    # the Slurm nodes (simcluster.py slurm-up) belong to the Slurm tests' own fixture
    wanted = _wanted_hosts(frozenset(sc.DEFAULT_SLURM_NODES.split(",")))
    healthy = {h["name"] for h in current.get("hosts", []) if h.get("healthy")}
    # build or repair just the hosts this session needs (`up --only`): `up --hosts N` removes
    # every host above hN (the Slurm nodes h7, h8) and counts none below it that is missing
    missing = [name for name in wanted if name not in healthy]
    up = _simcluster("up", "--only", ",".join(missing)) if missing else None
    if up is not None:
        if up.returncode != 0:
            pytest.fail(f"`simcluster.py up` failed (exit {up.returncode}):\n{up.stderr[-6000:]}",
                        pytrace=False)
    try:
        with open(sc.STATE_FILE) as f:
            state = json.load(f)
    except (OSError, ValueError) as e:
        pytest.fail(f"cluster state file {sc.STATE_FILE} unreadable after `up`: {e}", pytrace=False)
    by_name = {h["name"]: h for h in state["hosts"]}
    hosts = tuple(SimHost(name=name, address=by_name[name]["address"],
                          ssh_port=int(by_name[name]["ssh_port"]),
                          docker_host=by_name[name]["docker_host"])
                  for name in wanted if name in by_name)
    absent = [name for name in wanted if name not in by_name]
    if absent:
        pytest.fail(f"sim_cluster: hosts {absent} are not in {sc.STATE_FILE} after `up --only`: "
                    "run `simcluster.py status` and `up --only` them by hand", pytrace=False)
    return SimCluster(hosts=hosts, ssh_user=state["ssh_user"], ssh_key=state["ssh_key"],
                      known_hosts=state["known_hosts"])


@pytest.fixture(scope="session")
def local_docker():
    """docker SDK client for the root-namespace engine (/var/run/docker.sock), started if needed."""
    sc = _load_simcluster()
    if os.geteuid() != 0:
        pytest.fail("local_docker needs root (it may have to start dockerd)", pytrace=False)
    r = _simcluster("ensure-dockerd", timeout=180)
    if r.returncode != 0:
        pytest.fail(f"`simcluster.py ensure-dockerd` failed (exit {r.returncode}):\n{r.stderr[-6000:]}",
                    pytrace=False)
    import docker

    # The fixture promises the root-namespace engine: ignore a DOCKER_HOST pointing elsewhere.
    env = {k: v for k, v in os.environ.items()
           if k not in ("DOCKER_HOST", "DOCKER_TLS_VERIFY", "DOCKER_CERT_PATH")}
    env["DOCKER_HOST"] = "unix://" + sc.ROOT_DOCKER_SOCK
    client = docker.from_env(environment=env)
    client.ping()
    yield client
    client.close()
