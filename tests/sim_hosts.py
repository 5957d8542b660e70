"""Which simulated hosts a test session (or one pytest-xdist worker of it) may use.

Pure: names in, names out. tests/conftest.py's ``sim_cluster`` asks it; the unit tier tests it.

A session's hosts are CHIPPERF_SIM_HOSTS when set, else h1, h2, h3 (h1..h6 for two xdist
workers, ... skipping the Slurm nodes, which belong to the Slurm tests' fixture). Under xdist
the session's hosts are cut into one run of consecutive hosts per worker, so no two workers'
runs ever take the same host: a fault test that cuts, caps or repairs its hosts then breaks
no run of the other worker's, and a run never waits on the other worker's lease.
"""

from __future__ import annotations

HOSTS_PER_WORKER = 3     # the most any e2e test uses (test_inference_models_e2e: three hosts)


def default_host_names(workers: int, slurm_nodes: frozenset[str]) -> tuple[str, ...]:
    """h1, h2, ... enough for ``workers`` workers of HOSTS_PER_WORKER hosts, none a Slurm node."""
    names: list[str] = []
    index = 1
    while len(names) < HOSTS_PER_WORKER * workers:
        if f"h{index}" not in slurm_nodes:
            names.append(f"h{index}")
        index += 1
    return tuple(names)


def worker_index(worker_id: str) -> int:
    """0 for the controller (no xdist) and for ``gw0``, 1 for ``gw1``, ..."""
    if worker_id in ("", "master"):
        return 0
    if not (worker_id.startswith("gw") and worker_id[2:].isdigit()):
        raise ValueError(f"PYTEST_XDIST_WORKER: {worker_id!r} is not gw0, gw1, ...: "
                         "run the tests under pytest-xdist or without it")
    return int(worker_id[2:])


def worker_host_names(session_hosts: tuple[str, ...], worker_id: str,
                      workers: int) -> tuple[str, ...]:
    """This worker's share of ``session_hosts``: one run of len // workers consecutive hosts.

    Raises ValueError when a worker would get fewer than HOSTS_PER_WORKER hosts."""
    workers = max(workers, 1)
    share = len(session_hosts) // workers
    if share < HOSTS_PER_WORKER:
        raise ValueError(
            f"CHIPPERF_SIM_HOSTS: {len(session_hosts)} hosts for {workers} pytest-xdist "
            f"worker(s) give each fewer than {HOSTS_PER_WORKER}: name "
            f"{HOSTS_PER_WORKER * workers} hosts or run fewer workers")
    index = worker_index(worker_id)
    if index >= workers:
        raise ValueError(f"PYTEST_XDIST_WORKER: {worker_id} is past the "
                         f"{workers} workers PYTEST_XDIST_WORKER_COUNT says")
    return session_hosts[index * share:(index + 1) * share]
