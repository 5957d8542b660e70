"""One run, as its table of contents: preflight -> images -> rounds -> collect -> teardown -> report."""

from __future__ import annotations

import contextlib
import io
import json
import logging
import platform
import tarfile
import time
from dataclasses import dataclass, field
from datetime import datetime
from functools import partial
from pathlib import Path
from typing import AbstractSet, Any, Mapping, Protocol

from chipperf.config.model import ClusterConfig, TestConfig
from chipperf.containers import images, runtime
from chipperf.containers.incontainer import InContainerEngine
from chipperf.containers.pipconf import MasterPip, fill_from_master, master_pip_settings
from chipperf.errors import ChipperfError, GroupError, HostError, ImageError, interruption
from chipperf.plan import CasePlan, RoundPlan, RunPlan, make_plan
from chipperf.remote import Host, HostGroup, LocalHost, each
from chipperf.results.layout import create_run_dir, new_run_id
from chipperf.run import precheck
from chipperf.run.clusterlease import ClusterLease, Wait
from chipperf.run.lease import MasterLease, hold_argv, lease_path
from chipperf.run.record import RunRecord, attach_run_log, write_reports
from chipperf.run.rounds import RoundOutcome, RoundSettings, case_status, run_round
from chipperf.suites.catalogue import Catalogue

log = logging.getLogger("chipperf")
ORIGIN = "origin.json"   # in each host's work dir: the run id and its result dir on the master


@dataclass
class RunOutcome:
    run_dir: Path
    cases: dict[str, tuple[str, str]] = field(default_factory=dict)  # case key -> (status, reason)
    kept: list[str] = field(default_factory=list)   # host:dir of node files not collected

    @property
    def ok(self) -> bool:
        return bool(self.cases) and all(s == "succeeded" for s, _ in self.cases.values())


class Executor(Protocol):
    """Where the hosts came from when not from HOSTS (chipperf.slurm.allocation.Allocation):
    recorded in run.json, released after the teardown whatever ended the run."""

    def facts(self) -> dict[str, Any]: ...

    def lost(self) -> str: ...   # why the hosts are no longer held ('' while they are)

    def release(self) -> None: ...


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
    run_dir = plan.result_dir
    handler = attach_run_log(run_dir, debug)
    master = MasterLease.take(run_dir)
    record = RunRecord(plan, cluster, test, suite)
    if executor is not None:
        record.executor(executor.facts())
    outcome = RunOutcome(run_dir)
    hosts = None
    try:
        log.info("run %s: %d case(s) on %s; results in %s", plan.run_id, len(plan.cases),
                 ", ".join(plan.hosts), run_dir)
        for note in (n for case in plan.cases for n in case.notes):
            log.warning("%s", note)
        for skipped in test.skipped:
            log.warning("skipped %s (--keep-going): %s", skipped.key, "; ".join(skipped.problems))
        hosts, sensors = preflight(plan, cluster, record, test.in_container_launch, opened)
        _note_takeovers(lease, hosts, record)
        tags = in_container_tags(plan, record) if test.in_container_launch else \
            prepare_images(plan, test, hosts, record, outcome)
        for case in plan.cases:
            if executor is not None and (lost := executor.lost()):
                raise ChipperfError(f"before case {case.key}: {lost}")
            if case.key not in outcome.cases:
                settings = RoundSettings(plan.result_dir, tags[case.key], sensors,
                                         cluster.host_lost_after_s, suite)
                run_case(case, settings, test, hosts, record, outcome)
        record.finish("succeeded" if outcome.ok else "failed")
    except KeyboardInterrupt as exc:
        log.error("%s: stopping everything this run started", interruption(exc))
        _mark_unfinished(plan, record, outcome, "canceled", interruption(exc))
        record.finish("canceled", exc)
        raise
    except ChipperfError as exc:
        log.error("%s", exc)
        _mark_unfinished(plan, record, outcome, "failed", str(exc))
        record.finish("failed", exc)
    except BaseException as exc:  # a bug, or an error nobody wrapped: the record still closes
        log.exception("internal error: %s: %s", type(exc).__name__, exc)
        _mark_unfinished(plan, record, outcome, "failed",
                         f"internal error: {type(exc).__name__}: {exc} (traceback in run.log)")
        record.finish("failed", exc)
        raise
    finally:
        if hosts is not None:
            teardown(plan, cluster, hosts, keep={k.split(":", 1)[0] for k in outcome.kept})
        if executor is not None:
            executor.release()
            record.executor(executor.facts())
        if outcome.kept:
            log.error("the files of %d node(s) stay on their hosts (%s): the result root could "
                      "not take them, or the host could not be reached; `chipperf collect %s` "
                      "brings them home (chipperf run and clean also do)", len(outcome.kept),
                      ", ".join(outcome.kept), run_dir)
        write_reports(run_dir)
        master.release()
        logging.getLogger("chipperf").removeHandler(handler)
        handler.close()
    return outcome


def preflight(plan: RunPlan, cluster: ClusterConfig, record: RunRecord, in_container: bool,
              opened: precheck.Opened) -> tuple[HostGroup, dict[str, frozenset[str]]]:
    """Take the hosts ``opened`` connected (chipperf.run.precheck, which has looked for the data
    dirs), check engines and sensors everywhere at once, upload the code.
    Returns the hosts and, per host, the sensor paths its monitor sidecars can mount.
    ``in_container``: the hosts are existing containers (IN_CONTAINER_LAUNCH): no work-dir
    lease is held and no earlier run's leftovers are swept there (chipperf starts no
    containers); the cluster lease is held there too (chipperf.run.clusterlease)."""
    started = time.monotonic()
    hosts = opened.group()
    if in_container:
        for host in hosts.hosts.values():
            host.use_engine(InContainerEngine(host))
    claimed: list[Host] = []
    try:
        facts = hosts.run_step("check hosts", lambda h: _check_host(h, plan))
        for name, info in facts.items():
            record.host(name, **info)
        sensors = {name: frozenset(p for p, there in info["sensors"].items() if there)
                   for name, info in facts.items()}
        hosts.run_step("claim work dirs", lambda h: _claim(
            h, plan.work_dir(h.name, cluster.work_root), plan, claimed, not in_container))
        archive = _code_archive(plan)
        hosts.run_step("upload code", lambda h: _upload(h, archive, plan.work_dir(h.name, cluster.work_root)))
        if not in_container:
            _sweep_earlier_runs(hosts, cluster, plan.run_id)
    except BaseException:
        for host in claimed:  # only what this run made: a dir it found belongs to another run
            work = plan.work_dir(host.name, cluster.work_root)
            _remove_quietly(host, work)
            host.run(["rm", "-f", "--", lease_path(work)], check=False)
            host.run(["rmdir", str(Path(work).parent)], check=False)
        raise   # the caller closes the hosts, after the run's cluster lease is released
    log.info("preflight on %d host(s): %.1f s (code archive %.1f KiB)", len(plan.hosts),
             time.monotonic() - started, len(archive) / 1024)
    return hosts, sensors


def _note_takeovers(lease: ClusterLease, hosts: HostGroup, record: RunRecord) -> None:
    """A host whose lease this run took over from a master that is gone: run.json says whose,
    and a port found in use there names that run when ss cannot tell (chipperf.run.rounds)."""
    for name in lease.taken_over:
        record.host(name, lease_taken_over_from=lease.taken_over[name].describe())
        hosts.earlier_holders[name] = lease.previous_holder(name) or ""


def _sweep_earlier_runs(hosts: HostGroup, cluster: ClusterConfig, run_id: str) -> None:
    """Files earlier runs left on these hosts (a host that came back, a full result root)
    are brought home to their run dirs, and what those runs left is removed."""
    from chipperf.run.leftovers import sweep_host

    done = each(list(hosts.hosts.values()), lambda h: sweep_host(
        h, cluster.work_root, skip=run_id, with_origin_only=True, swept_by=run_id), "sweep",
        key=lambda h: h.name, raise_errors=False)
    for name, swept in done.items():
        if isinstance(swept, BaseException):
            log.warning("[%s] looking for what earlier runs left failed: %s", name, swept)
            continue
        for run_dir in swept.closed:
            log.warning("[%s] closed %s/run.json as canceled: its master is gone", name, run_dir)
        for line in swept.collected:
            log.warning("[%s] brought home files an earlier run left: %s (marked late in its "
                        "run.json)", name, line)
        for line in swept.judged:
            log.warning("[%s] judged again: round %s", name, line)
        if swept.containers or swept.work_dirs:
            log.info("[%s] removed what earlier runs left: %s", name,
                     ", ".join(swept.containers + swept.work_dirs))


def _check_host(host: Host, plan: RunPlan) -> dict[str, Any]:
    version = host.docker().version()
    sensors = {path: host.exists(path) for path in plan.sensor_paths()}
    log.info("[%s] Docker %s (%s)", host.name, version.get("Version"), version.get("KernelVersion"))
    return {"docker_version": version.get("Version"), "os": version.get("Os"),
            "kernel": version.get("KernelVersion"), "arch": version.get("Arch"),
            "sensors": sensors}


def _claim(host: Host, work_dir: str, plan: RunPlan, claimed: list[Host], lease: bool) -> None:
    """Create this run's work dir on the host; finding it there means another master started
    a run with the same id (the same second) on this host, and both would tear down the
    other's containers and files."""
    host.makedirs(str(Path(work_dir).parent))
    if lease:  # first: `chipperf clean` leaves this run alone while it lives
        _take_lease(host, work_dir)
    if not host.make_dir(work_dir):
        raise HostError(host.name, f"work dir {work_dir} exists already: another chipperf run "
                                   f"with id {plan.run_id} is using this host (started in the "
                                   "same second from another master?)",
                        "start the run again; if no run is going on, `chipperf clean` removes "
                        "what a crashed run left")
    claimed.append(host)


def _take_lease(host: Host, work_dir: str) -> None:
    try:
        host.hold(hold_argv(work_dir), timeout=30)
    except HostError as exc:  # the run goes on; only clean cannot tell it is going on
        log.warning("[%s] no lease on this run's work dir (%s): `chipperf clean` cannot tell "
                    "this run from a finished one while it runs", host.name, exc)


def _remove_quietly(host: Host, path: str) -> None:
    try:
        host.remove_tree(path)
    except HostError as exc:
        log.warning("[%s] could not remove %s: %s", host.name, path, exc)


def _upload(host: Host, archive: bytes, work_dir: str) -> None:
    host.put_archive(archive, work_dir)
    log.info("[%s] code uploaded to %s", host.name, work_dir)


def _code_archive(plan: RunPlan) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        for upload in plan.uploads:
            tar.add(upload.source, arcname=upload.target,
                    filter=lambda t: None if "__pycache__" in t.name else t)
        origin = {"run_id": plan.run_id, "result_dir": str(plan.result_dir.absolute()),
                  "master": platform.node()}
        for target, text in (*plan.files, (ORIGIN, json.dumps(origin))):
            data = text.encode("utf-8")
            info = tarfile.TarInfo(target)
            info.size, info.mode, info.mtime = len(data), 0o644, int(time.time())
            tar.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def prepare_images(plan: RunPlan, test: TestConfig, hosts: HostGroup, record: RunRecord,
                   outcome: RunOutcome) -> dict[str, str]:
    """Build each case's image once on the master's engine and load it into every host's engine."""
    builder = _builder_engine(hosts)
    master = fill_from_master(test.image, master_pip_settings()) if test.image.pip_from_master \
        else MasterPip(test.image)
    build_cfg = master.config
    record.image_build(images.build_settings(build_cfg, master.filled, master.skipped))
    tags: dict[str, str] = {}
    for case in plan.cases:
        started = time.monotonic()
        try:
            inputs = images.build_inputs(case.image_context, build_cfg)
            tag = images.ensure_case_image(builder, case.image_name, inputs, build_cfg,
                                           case.adaptation.requirements,
                                           f"{case.key}: vendor {case.vendor!r}")
            used = sorted({n.host for r in case.rounds for n in r.nodes})
            hosts.run_step("ship image", partial(_ship, builder, tag), only=used)
        except (ImageError, GroupError, HostError) as exc:
            _case_failed(case, record, outcome, f"image: {exc}")
            continue
        tags[case.key] = tag
        record.case(case.dir_name, image=tag, image_build=images.case_build(builder, inputs))
        log.info("image %s ready on %d host(s) in %.1f s", tag, len(used), time.monotonic() - started)
    return tags


def in_container_tags(plan: RunPlan, record: RunRecord) -> dict[str, str]:
    """IN_CONTAINER_LAUNCH: no image is built or shipped; the cases run in the containers
    the hosts are, as they are."""
    log.info("IN_CONTAINER_LAUNCH: no image build, no container started or removed; the cases "
             "run as processes in the existing containers %s", ", ".join(plan.hosts))
    for case in plan.cases:
        record.case(case.dir_name, image=None, in_container_launch=True)
    return {case.key: "" for case in plan.cases}


def _ship(builder: Any, tag: str, host: Host) -> bool:
    return images.ship_image(builder, host.docker(), tag, host.name)


def _builder_engine(hosts: HostGroup) -> Any:
    try:
        return LocalHost().docker()
    except HostError:
        first = next(iter(hosts.hosts.values()))
        log.info("no Docker engine on the master; building images on %s", first.name)
        return first.docker()


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
                _case_failed(case, record, outcome, f"not started: {how} in {when}")
                return
            break
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
                record.round(case.dir_name, canceled.to_dict())
            raise
        outcomes.append(result)
        hosts.engine_gone.update(result.engine_gone)
        hosts.port_in_use.update(result.port_in_use)
        outcome.kept += result.kept_on_hosts.values()
        record.round(case.dir_name, result.to_dict())
        log.info("case %s round %d: %s %s", case.key, rnd.number, result.status, result.reason)
    status, reason = case_status(outcomes)
    record.case(case.dir_name, status=status, reason=reason)
    outcome.cases[case.key] = (status, reason)


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


def _case_failed(case: CasePlan, record: RunRecord, outcome: RunOutcome, reason: str) -> None:
    log.error("case %s: %s", case.key, reason)
    record.case(case.dir_name, status="failed", reason=reason)
    outcome.cases[case.key] = ("failed", reason)


def _mark_unfinished(plan: RunPlan, record: RunRecord, outcome: RunOutcome, status: str,
                     reason: str) -> None:
    for case in plan.cases:
        if case.key not in outcome.cases:
            record.case(case.dir_name, status=status, reason=reason)
            outcome.cases[case.key] = (status, reason)


def teardown(plan: RunPlan, cluster: ClusterConfig, hosts: HostGroup,
             keep: frozenset[str] | set[str] = frozenset()) -> None:
    """Remove whatever the run left on any host: containers (by label) and work dirs; the
    work dir of a host in ``keep`` stays, with the node files that could not come home. The
    hosts stay connected: the run's cluster lease is released on them before they close."""
    def clean(host: Host) -> None:
        if host.name in hosts.silent:   # every call would hang until its timeout
            log.error("[%s] does not answer: the run's containers and work dir stay there; "
                      "`chipperf collect %s` (or `chipperf clean`) removes them once it "
                      "answers again", host.name, plan.result_dir)
            return
        try:
            left = runtime.remove_run_containers(host.docker(), plan.run_id)
        except Exception as exc:  # its engine is away: the work dir stays, to show whose they are
            log.error("[%s] the run's containers could not be removed (%s): its work dir stays "
                      "so that `chipperf clean` or the next run on this host removes them",
                      host.name, exc)
            return
        if left:
            log.warning("[%s] removed leftover containers: %s", host.name, ", ".join(left))
        if host.name in keep:
            return
        work = plan.work_dir(host.name, cluster.work_root)
        removed = host.run(["rm", "-rf", "--", work, lease_path(work)], check=False)
        if not removed.ok:
            log.warning("[%s] its work dir %s was not removed (%s): `chipperf clean` (or the "
                        "next run on this host) removes it", host.name, work,
                        (removed.stderr or removed.stdout).strip()[-300:])
        host.run(["rmdir", str(Path(work).parent)], check=False)

    try:
        hosts.run_step("teardown", clean)
    except GroupError as exc:
        log.error("teardown incomplete: %s", exc)


