"""Run one step on every host in parallel; get host -> result, or one error carrying the map."""

from __future__ import annotations

import logging
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Callable, Sequence, TypeVar

from chipperf.config.model import ClusterConfig
from chipperf.errors import ChipperfError, GroupError
from chipperf.remote.host import Host, open_host

T = TypeVar("T")
log = logging.getLogger("chipperf")


class HostGroup:
    def __init__(self, hosts: Sequence[Host]):
        self.hosts = {h.name: h for h in hosts}
        self.silent: set[str] = set()   # hosts a round found cut off: asked nothing more
        self.engine_gone: set[str] = set()   # hosts whose container engine a round found gone
        self.port_in_use: dict[str, int | None] = {}   # host -> the port a round found taken
        self.earlier_holders: dict[str, str] = {}   # host -> a run the cluster lease took it from
        self.caches_kept: dict[str, str] = {}   # host -> why it cannot drop its page cache

    @classmethod
    def connect(cls, addresses: Sequence[str], cluster: ClusterConfig) -> "HostGroup":
        opened = each(addresses, lambda a: open_host(a, cluster), "connect")
        return cls([opened[a] for a in addresses])

    def __getitem__(self, name: str) -> Host:
        return self.hosts[name]

    def run_step(self, step: str, fn: Callable[[Host], T],
                 only: Sequence[str] | None = None) -> dict[str, T]:
        targets = [self.hosts[n] for n in (only or self.hosts)]
        started = time.monotonic()
        results = each(targets, fn, step, key=lambda h: h.name)
        log.debug("%s on %d host(s) took %.2f s", step, len(targets), time.monotonic() - started)
        return results

    def close(self) -> None:
        each(list(self.hosts.values()), lambda h: h.close(), "close", key=lambda h: h.name,
             raise_errors=False)


def each(items: Sequence, fn: Callable, step: str, key: Callable = lambda x: x,
         raise_errors: bool = True) -> dict:
    """fn(item) for every item at once; GroupError with the whole map if any raised."""
    if not items:
        return {}
    with ThreadPoolExecutor(max_workers=len(items), thread_name_prefix=step) as pool:
        futures = {key(item): pool.submit(fn, item) for item in items}
    results: dict = {}
    for name, future in futures.items():
        exc = future.exception()
        results[name] = exc if exc is not None else future.result()
    failed = {n: r for n, r in results.items() if isinstance(r, BaseException)}
    if failed and raise_errors:
        for exc in failed.values():
            if not isinstance(exc, (ChipperfError, Exception)):
                raise exc  # KeyboardInterrupt and the like pass straight through
        raise GroupError(step, results)
    return results


