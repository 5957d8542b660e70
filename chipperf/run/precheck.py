"""What is checked on the hosts before a run has a run dir: each host is connected once,
and the data dir of every case it serves must be there.

A missing data dir is bad input, like a bad config: one ConfigError naming each case, dir
and host (exit 2), and nothing is touched: no run dir, nothing on any host. A host that
cannot be reached is not bad input: preflight reports it, in the run's record, as before.
The connections made here are the ones the run goes on with (no second login).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, Sequence

from chipperf.config.model import ClusterConfig, TestConfig
from chipperf.errors import ConfigError, GroupError
from chipperf.plan import case_hosts
from chipperf.remote import HostGroup, each
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
    """The hosts connected before the run dir existed: address -> Host, or why not."""
    results: dict[str, Host | BaseException]

    def group(self) -> HostGroup:
        """The run's hosts; a host that could not be connected fails as connecting does
        (the caller closes the others: chipperf.run.controller.run)."""
        if any(isinstance(r, BaseException) for r in self.results.values()):
            raise GroupError("connect", self.results)
        return HostGroup(list(self.hosts().values()))

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
                         "connect", raise_errors=False))
    try:
        need = data_dirs(cluster, test)
        hosts = [h for h in opened.results.values() if isinstance(h, Host)]
        found = each(hosts, lambda h: [d for d in need.get(h.name, {}) if not h.is_dir(d)],
                     "check data dirs", key=lambda h: h.name, raise_errors=False)
        missing = {name: dirs for name, dirs in found.items() if isinstance(dirs, list) and dirs}
        problems = missing_problems(missing, need)
    except BaseException:
        opened.close()
        raise
    if problems:
        opened.close()
        raise ConfigError(problems)
    return opened
