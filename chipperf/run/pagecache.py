"""FlagPerf's CLEAR_CACHES: each host's page cache dropped before a round.
"""

from __future__ import annotations

import logging

from chipperf.errors import HostError
from chipperf.plan import RoundPlan
from chipperf.remote import Host, HostGroup
from chipperf.run.record import RunRecord

log = logging.getLogger("chipperf")


DROP_CACHES = ("sh", "-c", "sync && echo 3 > /proc/sys/vm/drop_caches")


def drop_page_caches(rnd: RoundPlan, hosts: HostGroup,
                     record: RunRecord | None = None) -> dict[str, str]:
    """FlagPerf's CLEAR_CACHES: before each round, every host of the round writes its dirty
    pages and drops its page cache, so no round reads its data from a cache a previous one
    warmed. Per host: "dropped", or why not (the round still runs). A host that cannot (a
    container with a read-only /proc/sys, no root) is said so once: one warning, its
    run.json host entry (``page_cache``); later rounds do not ask it again."""
    done = {}
    for host in sorted({n.host for n in rnd.nodes}):
        if host in hosts.caches_kept:
            done[host] = f"not dropped: {hosts.caches_kept[host]} (not asked again)"
            continue
        why = _drop_on(hosts[host])
        done[host] = "dropped" if not why else f"not dropped: {why}"
        if not why:
            log.info("[%s] CLEAR_CACHES: page cache dropped before round %d", host, rnd.number)
            continue
        hosts.caches_kept[host] = why
        log.warning("[%s] CLEAR_CACHES: the page cache cannot be dropped (%s): this run's "
                    "rounds there may read from a warm cache; not asked again (run.json: "
                    "hosts.%s.page_cache)", host, why, host)
        if record is not None:
            record.host(host, page_cache=f"not dropped: {why}")
    return done


def _drop_on(host: Host) -> str:
    """'' when ``host`` dropped its page cache, else why not."""
    try:
        result = host.run(DROP_CACHES, timeout=300, check=False)
    except HostError as exc:
        return str(exc)
    return "" if result.ok else (result.stderr or result.stdout).strip()[-200:] or \
        f"exit {result.exit_code}"
