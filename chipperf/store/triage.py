"""What ``chipperf check``'s problems mean for an ingest (issue 42): a run is refused only
for problems of the run itself; a problem inside one round's files (a torn PerfLog line, a
node dir missing) marks that round torn (kept, shown, never counted) and the rest of the run
goes in; a monitor log missing or damaged is recorded with the run (its telemetry figures are
absent with their reasons already), not a refusal.

Problems are ``chipperf check``'s ``path[:line]: what``, paths relative to the run dir:
``<case>/round<N>/...`` (a training round), ``<case>/<host>_noderank<K>/...`` (FlagPerf's
inference case: its one round).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace

from chipperf.results.compute.aggregate import aggregate_case
from chipperf.results.compute.schema import CaseResult, RoundResult, RunSummary

TORN = "torn"      # a round's store status when its files are not intact
_ROUND = re.compile(r"^(?P<case>[^/]+)/(?:round(?P<number>\d+)|[^/]+_noderank\d+)/(?P<rest>.*)$")
_MONITOR = re.compile(r"(^|/)[\w.-]*_monitor\.log(:\d+)?: ")


@dataclass(frozen=True)
class Triage:
    refusing: tuple[str, ...] = ()                                  # problems of the run itself
    recorded: tuple[str, ...] = ()                                  # kept with the run
    torn: Mapping[tuple[str, int], tuple[str, ...]] = field(default_factory=dict)

    def round_problems(self, case: str, number: int) -> tuple[str, ...]:
        return self.torn.get((case, number), ())


def triage(problems: Iterable[str]) -> Triage:
    refusing: list[str] = []
    recorded: list[str] = []
    torn: dict[tuple[str, int], list[str]] = {}
    for problem in problems:
        match = _ROUND.match(problem)
        if match is None:
            refusing.append(problem)
        elif _MONITOR.search(match["rest"]):
            recorded.append(problem)
        else:
            number = int(match["number"]) if match["number"] else 1
            torn.setdefault((match["case"], number), []).append(problem)
    return Triage(tuple(refusing), tuple(recorded), {k: tuple(v) for k, v in torn.items()})


def mark_torn(summary: RunSummary, found: Triage) -> tuple[RunSummary, tuple[str, ...]]:
    """The summary with each torn round's status TORN and its case aggregated again without
    it; and the problems recorded with the run (the torn rounds' too, as ``chipperf check``
    worded them)."""
    if not found.torn:
        return summary, found.recorded
    cases = tuple(_mark_case(case, found, summary.suite) for case in summary.cases)
    torn = tuple(p for problems in found.torn.values() for p in problems)
    return replace(summary, cases=cases), found.recorded + torn


def _mark_case(case: CaseResult, found: Triage, suite: str | None) -> CaseResult:
    if not any(found.round_problems(case.dir_name, r.number) for r in case.rounds):
        return case
    rounds = tuple(_mark_round(r, found.round_problems(case.dir_name, r.number))
                   for r in case.rounds)
    return aggregate_case(replace(case, rounds=rounds), case.suite or suite)


def _mark_round(result: RoundResult, problems: tuple[str, ...]) -> RoundResult:
    if not problems:
        return result
    more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
    return replace(result, status=TORN, reason=f"its files are not intact: {problems[0]}{more}")
