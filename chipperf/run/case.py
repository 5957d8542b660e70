"""One case of a run: its rounds one after the other, the rest skipped on a host an earlier
round lost; the case's status is that of the rounds it had.
"""

from __future__ import annotations

import logging
from typing import AbstractSet, Mapping

from chipperf.config.model import TestConfig
from chipperf.plan import CasePlan, RoundPlan, RunPlan
from chipperf.remote import HostGroup
from chipperf.run.outcome import RoundOutcome, RunOutcome
from chipperf.run.pagecache import drop_page_caches
from chipperf.run.record import RunRecord
from chipperf.run.rounds import RoundSettings, case_status, run_round

log = logging.getLogger("chipperf")


def run_case(case: CasePlan, settings: RoundSettings, test: TestConfig, hosts: HostGroup,
             record: RunRecord, outcome: RunOutcome) -> None:
    """The case's rounds, one after the other; its status is that of the rounds it had."""
    record.case(case.dir_name, status="running")
    outcomes: list[RoundOutcome] = []
    for rnd in case.rounds:
        lost = _lost_hosts(outcomes, rnd, hosts.silent | hosts.engine_gone | set(hosts.port_in_use))
        if lost and not test.retry_lost_hosts:
            when = f"round {outcomes[-1].number}" if outcomes else "an earlier case of this run"
            _skip_rest(case, rnd, lost, when, record, hosts.engine_gone, hosts.port_in_use)
            if not outcomes:   # the case never started: its reason names the host, not "no round"
                how = _how_lost(lost, hosts.engine_gone, hosts.port_in_use)
                case_failed(case, record, outcome, f"not started: {how} in {when}")
                return
            break
        settings.hold.stop_if_lost(f"case {case.key} round {rnd.number} not started")
        if test.clear_caches:
            record.case(case.dir_name, clear_caches=drop_page_caches(rnd, hosts, record))
        log.info("case %s round %d/%d: starting on %s", case.key, rnd.number, len(case.rounds),
                 ", ".join(n.host for n in rnd.nodes))
        try:
            result = run_round(hosts, case, rnd, settings)
        except KeyboardInterrupt as exc:  # the canceled round is in run.json like any other
            canceled = getattr(exc, "round_outcome", None)
            if canceled is not None:
                outcome.kept += canceled.kept_on_hosts.values()
                record.round(case.dir_name, {**canceled.to_dict(), **_point(rnd)})
            raise
        outcomes.append(result)
        hosts.engine_gone.update(result.engine_gone)
        hosts.port_in_use.update(result.port_in_use)
        outcome.kept += result.kept_on_hosts.values()
        record.round(case.dir_name, {**result.to_dict(), **_point(rnd)})
        log.info("case %s round %d: %s %s", case.key, rnd.number, result.status, result.reason)
        if settings.hold.reason:
            settings.hold.stop_if_lost(f"case {case.key} round {rnd.number}")
    status, reason = case_status(outcomes)
    record.case(case.dir_name, status=status, reason=reason)
    outcome.cases[case.key] = (status, reason)


def _point(rnd: RoundPlan) -> dict[str, dict[str, object]]:
    """A sweep's round records its point (run.json's rounds[].point)."""
    return {"point": dict(rnd.point)} if rnd.point else {}


def _lost_hosts(outcomes: list[RoundOutcome], rnd: RoundPlan, silent: set[str]) -> list[str]:
    """The round's hosts an earlier round of the case lost (unreachable, their container
    engine gone, a port of theirs in use), or any round found so."""
    lost = {h for r in outcomes for h in (*r.lost_hosts, *r.engine_gone, *r.port_in_use)} | silent
    return [n.host for n in rnd.nodes if n.host in lost]


def _how_lost(lost: list[str], engine_gone: AbstractSet[str],
              port_in_use: Mapping[str, int | None] | None = None) -> str:
    """'h1 stopped answering; h2's container engine stopped or is gone; port 29500 on h3 is
    already in use'."""
    taken = port_in_use or {}
    away = [h for h in lost if h not in engine_gone and h not in taken]
    parts = [f"{', '.join(away)} stopped answering"] if away else []
    parts += [f"{h}'s container engine stopped or is gone" for h in lost if h in engine_gone]
    parts += [f"{_port(taken[h])} on {h} is already in use" for h in lost
              if h in taken and h not in engine_gone]
    return "; ".join(parts)


def _port(port: int | None) -> str:
    return "a port the case listens on" if port is None else f"port {port}"


def _skip_rest(case: CasePlan, rnd: RoundPlan, lost: list[str], when: str,
               record: RunRecord, engine_gone: AbstractSet[str] = frozenset(),
               port_in_use: Mapping[str, int | None] | None = None) -> None:
    how = _how_lost(lost, engine_gone, port_in_use)
    log.error("case %s: %s in %s: rounds %d-%d not started there (RETRY_LOST_HOSTS = True in "
              "the test config starts them anyway)", case.key, how, when, rnd.number,
              len(case.rounds))
    record.case(case.dir_name, skipped_rounds=list(range(rnd.number, len(case.rounds) + 1)),
                skipped_because=f"{how} in {when}")


def case_failed(case: CasePlan, record: RunRecord, outcome: RunOutcome, reason: str) -> None:
    log.error("case %s: %s", case.key, reason)
    record.case(case.dir_name, status="failed", reason=reason)
    outcome.cases[case.key] = ("failed", reason)


def mark_unfinished(plan: RunPlan, record: RunRecord, outcome: RunOutcome, status: str,
                     reason: str) -> None:
    for case in plan.cases:
        if case.key not in outcome.cases:
            record.case(case.dir_name, status=status, reason=reason)
            outcome.cases[case.key] = (status, reason)
