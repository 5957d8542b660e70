"""What is checked on the hosts before a run has a run dir: each host is connected once,
and the data dir of every case it serves must be there.

A missing data dir is bad input, like a bad config: one ConfigError naming each case, dir
and host (exit 2), and nothing is touched: no run dir, nothing on any host. So is, with
IN_CONTAINER_NAME, a host where that container is not running (or, for a multi-node case, not
on the host's network): the data dirs are then looked for inside the container. A host that
cannot be reached is not bad input: preflight reports it, in the run's record, as before.
The connections made here are the ones the run goes on with (no second login).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping, Sequence

from chipperf.config.model import ClusterConfig, TestConfig
from chipperf.errors import ConfigError, GroupError
from chipperf.plan import case_hosts
from chipperf.remote import HostGroup, each
from chipperf.remote.container import ContainerHost, container_problems
from chipperf.remote.host import Host, open_host


def data_dirs(cluster: ClusterConfig, test: TestConfig) -> dict[str, dict[str, tuple[str, ...]]]:
    """host -> data dir -> the case keys that read it there (pure)."""
    need: dict[str, dict[str, list[str]]] = {}
    for entry in test.cases:
        for host in case_hosts(entry, cluster):
            need.setdefault(host, {}).setdefault(entry.data_dir, []).append(str(entry.key))
    return {h: {d: tuple(keys) for d, keys in dirs.items()} for h, dirs in need.items()}


def missing_problems(missing: Mapping[str, Sequence[str]],
                     need: Mapping[str, Mapping[str, Sequence[str]]]) -> list[str]:
    """One problem per case and data dir, naming every host that lacks it (pure)."""
    hosts_of: dict[tuple[str, str], list[str]] = {}
    for host, dirs in missing.items():
        for data_dir in dirs:
            for key in need[host][data_dir]:
                hosts_of.setdefault((key, data_dir), []).append(host)
    return [f"CASES[{key!r}]: data dir {data_dir} does not exist on {', '.join(hosts)}: copy "
            "the dataset there, or fix the path in CASES"
            for (key, data_dir), hosts in sorted(hosts_of.items())]


@dataclass
class Opened:
    """The hosts connected before the run dir existed: address -> Host, or why not;
    ``container``: IN_CONTAINER_NAME, the running container on each host the cases run in."""
    results: dict[str, Host | BaseException]
    container: str | None = field(default=None)

    def group(self) -> HostGroup:
        """The run's hosts (each one's container, with IN_CONTAINER_NAME); a host that could
        not be connected fails as connecting does (the caller closes the others:
        chipperf.run.controller.run)."""
        if any(isinstance(r, BaseException) for r in self.results.values()):
            raise GroupError("connect", self.results)
        return HostGroup([self.inside(h) for h in self.hosts().values()])

    def inside(self, host: Host) -> Host:
        """Where the cases run on ``host``: itself, or its container IN_CONTAINER_NAME."""
        return host if self.container is None else ContainerHost(host, self.container)

    def hosts(self) -> dict[str, Host]:
        """The hosts that could be connected, by name."""
        return {h.name: h for h in self.results.values() if isinstance(h, Host)}

    def close(self) -> None:
        for host in self.results.values():
            if isinstance(host, Host):
                host.close()


def run_hosts(cluster: ClusterConfig, test: TestConfig) -> tuple[str, ...]:
    """The hosts the cases use, in HOSTS order (the plan's hosts; pure)."""
    used = {h for entry in test.cases for h in case_hosts(entry, cluster)}
    return tuple(h for h in cluster.hosts if h in used)


def open_checked(cluster: ClusterConfig, test: TestConfig) -> Opened:
    """Connect every host the cases use and look for the data dirs it needs; ConfigError
    (after closing them) when any is missing."""
    opened = Opened(each(list(run_hosts(cluster, test)), lambda a: open_host(a, cluster),
                         "connect", raise_errors=False),
                    test.in_container_name if test.in_container_launch else None)
    try:
        problems = _container_problems(opened, cluster, test)
        if not problems:
            problems = _data_dir_problems(opened, cluster, test)
    except BaseException:
        opened.close()
        raise
    if problems:
        opened.close()
        raise ConfigError(problems)
    return opened


def _data_dir_problems(opened: Opened, cluster: ClusterConfig, test: TestConfig) -> list[str]:
    need = data_dirs(cluster, test)
    hosts = [opened.inside(h) for h in opened.hosts().values()]
    found = each(hosts, lambda h: [d for d in need.get(h.name, {}) if not h.is_dir(d)],
                 "check data dirs", key=lambda h: h.name, raise_errors=False)
    missing = {name: dirs for name, dirs in found.items() if isinstance(dirs, list) and dirs}
    return missing_problems(missing, need)


def _container_problems(opened: Opened, cluster: ClusterConfig, test: TestConfig) -> list[str]:
    """IN_CONTAINER_NAME: the container runs on every host the cases use (and is on the
    host's network where a case spans hosts), one line per host that it is not."""
    if opened.container is None:
        return []
    name = opened.container
    multi = {h for e in test.cases if len(hosts := case_hosts(e, cluster)) > 1 for h in hosts}
    found = each(list(opened.hosts().values()),
                 lambda h: container_problems(h, name, h.name in multi), "check containers",
                 key=lambda h: h.name, raise_errors=False)
    return [line for name_, lines in sorted(found.items())
            for line in (lines if isinstance(lines, list) else [f"{name_}: {lines}"])]
