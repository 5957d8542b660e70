"""One run, as its table of contents: preflight -> images -> cases (rounds: start, wait,
collect) -> teardown -> report. Each step lives one level down: chipperf.run.preflight,
caseimages, case (its rounds: rounds), teardown, record."""

from __future__ import annotations

import contextlib
import logging
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, Iterator, Protocol

from chipperf.config.model import ClusterConfig, TestConfig
from chipperf.errors import ChipperfError, interruption
from chipperf.plan import RunPlan, make_plan
from chipperf.remote import HostGroup
from chipperf.results.layout import create_run_dir, new_run_id
from chipperf.run import precheck
from chipperf.run.case import mark_unfinished, run_case
from chipperf.run.caseimages import in_container_tags, prepare_images
from chipperf.run.clusterlease import ClusterLease, Wait
from chipperf.run.holdwatch import HoldWatch
from chipperf.run.lease import MasterLease
from chipperf.run.outcome import RunOutcome
from chipperf.run.pagecache import drop_page_caches
from chipperf.run.preflight import ORIGIN, note_takeovers, preflight
from chipperf.run.record import RunRecord, attach_run_log, write_reports
from chipperf.run.rounds import RoundSettings, case_status
from chipperf.run.teardown import teardown
from chipperf.suites.catalogue import Catalogue

# the run's steps, importable from here as before they moved one level down
__all__ = ["ORIGIN", "Executor", "RunOutcome", "case_status", "drop_page_caches",
           "in_container_tags", "prepare_images", "preflight", "run", "run_case", "teardown"]

log = logging.getLogger("chipperf")


class Executor(Protocol):
    """Where the hosts came from when not from HOSTS (chipperf.slurm.allocation.Allocation):
    recorded in run.json, released after the teardown whatever ended the run."""

    def facts(self) -> dict[str, Any]: ...

    def lost(self) -> str: ...   # why the hosts are no longer held ('' while they are)

    def release(self) -> None: ...


@dataclass
class _Going:
    """A run while it goes: what its steps read, and what they add (the hosts, once preflight
    has them: the teardown's)."""
    plan: RunPlan
    cluster: ClusterConfig
    test: TestConfig
    suite: str
    record: RunRecord
    outcome: RunOutcome
    hosts: HostGroup | None = None


def run(cluster: ClusterConfig, test: TestConfig, catalogue: Catalogue, *,
        suite: str = "training", debug: bool = False, wait: Wait | None = None,
        executor: Executor | None = None) -> RunOutcome:
    """Connect and check the hosts, lease them all (refused or waiting while another run
    holds one: nothing is touched before), then the run; the leases go last. ``executor``:
    the hosts came from a scheduler's allocation (chipperf.slurm), released after teardown."""
    with contextlib.ExitStack() as stack:
        opened = precheck.open_checked(cluster, test)   # a missing data dir: no run dir is made
        stack.callback(opened.close)
        lease = ClusterLease.take(opened.hosts(), wait)
        stack.callback(lease.release)
        run_id, run_dir = create_run_dir(Path(test.result_root), new_run_id(datetime.now()))
        lease.name_run(run_id, str(run_dir.absolute()))
        plan = make_plan(cluster, test, catalogue, run_id, Path(test.result_root))
        return _run(plan, cluster, test, suite, debug, opened, lease, executor)


def _run(plan: RunPlan, cluster: ClusterConfig, test: TestConfig, suite: str, debug: bool,
         opened: precheck.Opened, lease: ClusterLease, executor: Executor | None) -> RunOutcome:
    handler = attach_run_log(plan.result_dir, debug)
    master = MasterLease.take(plan.result_dir)
    going = _Going(plan, cluster, test, suite, RunRecord(plan, cluster, test, suite),
                   RunOutcome(plan.result_dir))
    if executor is not None:
        going.record.executor(executor.facts())
    try:
        with _closing_record(going):
            _cases(going, opened, lease, executor)
    finally:
        _close(going, executor, master, handler)
    return going.outcome


def _cases(going: _Going, opened: precheck.Opened, lease: ClusterLease,
           executor: Executor | None) -> None:
    """Preflight, each case's image, then the cases one after the other."""
    plan, test, record = going.plan, going.test, going.record
    _announce(plan, test)
    going.hosts, sensors = preflight(plan, going.cluster, record, test.in_container_launch, opened)
    note_takeovers(lease, going.hosts, record)
    tags = in_container_tags(plan, record, test.in_container_name) if test.in_container_launch else \
        prepare_images(plan, test, going.hosts, record, going.outcome)
    hold = HoldWatch(executor.lost if executor is not None else None)
    for case in plan.cases:
        hold.stop_if_lost(f"before case {case.key}")
        if case.key not in going.outcome.cases:
            settings = RoundSettings(plan.result_dir, tags[case.key], sensors,
                                     going.cluster.host_lost_after_s, going.suite, hold)
            run_case(case, settings, test, going.hosts, record, going.outcome)
    record.finish("succeeded" if going.outcome.ok else "failed")


def _announce(plan: RunPlan, test: TestConfig) -> None:
    log.info("run %s: %d case(s) on %s; results in %s", plan.run_id, len(plan.cases),
             ", ".join(plan.hosts), plan.result_dir)
    for note in (n for case in plan.cases for n in case.notes):
        log.warning("%s", note)
    for skipped in test.skipped:
        log.warning("skipped %s (--keep-going): %s", skipped.key, "; ".join(skipped.problems))


@contextlib.contextmanager
def _closing_record(going: _Going) -> Iterator[None]:
    """Whatever ends the run, run.json says so and every case not finished says why: an
    error chipperf names ends here; an interruption or a bug goes on up."""
    plan, record, outcome = going.plan, going.record, going.outcome
    try:
        yield
    except KeyboardInterrupt as exc:
        log.error("%s: stopping everything this run started", interruption(exc))
        mark_unfinished(plan, record, outcome, "canceled", interruption(exc))
        record.finish("canceled", exc)
        raise
    except ChipperfError as exc:
        log.error("%s", exc)
        mark_unfinished(plan, record, outcome, "failed", str(exc))
        record.finish("failed", exc)
    except BaseException as exc:  # a bug, or an error nobody wrapped: the record still closes
        log.exception("internal error: %s: %s", type(exc).__name__, exc)
        mark_unfinished(plan, record, outcome, "failed",
                        f"internal error: {type(exc).__name__}: {exc} (traceback in run.log)")
        record.finish("failed", exc)
        raise


def _close(going: _Going, executor: Executor | None, master: MasterLease,
           handler: logging.Handler) -> None:
    """On every way out: teardown, the executor's hosts released, the reports, the leases."""
    outcome, run_dir = going.outcome, going.plan.result_dir
    if going.hosts is not None:
        teardown(going.plan, going.cluster, going.hosts,
                 keep={k.split(":", 1)[0] for k in outcome.kept})
    if executor is not None:
        executor.release()
        going.record.executor(executor.facts())
    if outcome.kept:
        inside = going.test.in_container_name if going.test.in_container_launch else None
        log.error("the files of %d node(s) stay on their hosts (%s): the result root could "
                  "not take them, or the host could not be reached; `chipperf collect %s` "
                  "brings them home (%s also do)", len(outcome.kept),
                  ", ".join(outcome.kept), run_dir,
                  "chipperf run and clean" if inside is None else
                  f"`chipperf clean --cluster CLUSTER --in-container {inside}` and the next "
                  "run in that container")
    write_reports(run_dir)
    master.release()
    logging.getLogger("chipperf").removeHandler(handler)
    handler.close()
