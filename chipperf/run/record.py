"""The run's own record: run.json (resolved config, versions, every case's status) and run.log."""

from __future__ import annotations

import contextlib
import dataclasses
import json
import logging
import platform
import sys
import threading
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from chipperf import __version__
from chipperf.config.adaptation import Adaptation
from chipperf.config.model import ClusterConfig, TestConfig
from chipperf.plan import CasePlan, RunPlan
from chipperf.results.layout import fallback_dirs, write_json

log = logging.getLogger("chipperf")


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def _plain(obj: Any) -> Any:
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return {f.name: _plain(getattr(obj, f.name)) for f in dataclasses.fields(obj)}
    if isinstance(obj, (list, tuple)):
        return [_plain(x) for x in obj]
    if isinstance(obj, dict):
        return {str(k): _plain(v) for k, v in obj.items()}
    if isinstance(obj, Path):
        return str(obj)
    if hasattr(obj, "model") and hasattr(obj, "repeat"):  # CaseKey
        return str(obj)
    return obj


class RunRecord:
    """Holds run.json's content and rewrites it atomically after every change."""

    def __init__(self, plan: RunPlan, cluster: ClusterConfig, test: TestConfig, suite: str):
        self.path = plan.result_dir / "run.json"
        self._lock = threading.Lock()
        self.fallback: Path | None = None   # where run.json is while the run dir cannot take it
        self._lost = False
        self.data: dict[str, Any] = {
            "run_id": plan.run_id, "chipperf_version": __version__, "suite": suite,
            "started_at": _now(), "finished_at": None, "status": "running",
            "master": {"python": sys.version.split()[0], "platform": platform.platform(),
                       "node": platform.node()},
            "cluster": _plain(cluster), "test": _plain(test), "hosts": {},
            "cases": {c.dir_name: self._case(c) for c in plan.cases},
            # case keys --keep-going left out of the plan -> every reason each cannot run
            "skipped": {s.key: list(s.problems) for s in test.skipped},
        }
        self.save()

    @staticmethod
    def _case(case: CasePlan) -> dict[str, Any]:
        return {"key": case.key, "vendor": case.vendor, "chip": case.chip,
                "framework": case.framework, "image_folder": case.image_folder,
                "notes": list(case.notes), "data_dir": case.data_dir, "image": None,
                **({"implementation": case.implementation} if case.implementation else {}),
                **({"adaptation": case.adaptation.record()} if case.adaptation != Adaptation()
                   else {}),
                "status": "pending", "reason": "", "rounds": []}

    def save(self) -> None:
        """Atomically into the run dir; when the result root cannot take it (full, read-only,
        gone), into the first fallback dir that can (results.layout.fallback_dirs), said
        once in the log; the fallback copy goes as soon as the run dir takes it again."""
        with self._lock:
            try:
                write_json(self.path, self.data)
            except OSError as exc:
                self._fall_back(exc)
                return
            if self.fallback is not None:
                with contextlib.suppress(OSError):
                    self.fallback.unlink()
                log.info("run.json is written to %s again", self.path)
                self.fallback = None

    def _fall_back(self, problem: OSError) -> None:
        tried = []
        for folder in fallback_dirs():
            path = folder / f"{self.data['run_id']}.run.json"
            try:
                write_json(path, self.data)
            except OSError as exc:
                tried.append(f"{path} ({exc})")
                continue
            if path != self.fallback:
                log.error("run.json could not be written to %s (%s); it is written to %s "
                          "until the result root takes it again", self.path, problem, path)
            self.fallback = path
            return
        if not self._lost:
            self._lost = True
            log.error("run.json could not be written to %s (%s), nor to %s: the run's record "
                      "is in this log only", self.path, problem, ", ".join(tried))

    def host(self, name: str, **facts: Any) -> None:
        self.data["hosts"].setdefault(name, {}).update(facts)
        self.save()

    def case(self, dir_name: str, **fields: Any) -> None:
        self.data["cases"][dir_name].update(fields)
        self.save()

    def image_build(self, settings: dict[str, Any]) -> None:
        """The effective image build settings (after filling from the master's pip)."""
        self.data["image_build"] = settings
        self.save()

    def executor(self, facts: dict[str, Any]) -> None:
        """Where the hosts came from (EXECUTOR = "slurm": the job, its nodes and states)."""
        self.data["executor"] = facts
        self.save()

    def round(self, dir_name: str, entry: dict[str, Any]) -> None:
        self.data["cases"][dir_name]["rounds"].append(entry)
        self.save()

    def finish(self, status: str, error: BaseException | None = None) -> None:
        """Close the record; a run that ended on an exception names its type and message
        (its traceback is in run.log)."""
        self.data.update(status=status, finished_at=_now())
        if error is not None:
            self.data["error"] = {"type": type(error).__name__, "message": str(error)}
        self.save()
        if self.fallback is not None:
            log.error("the run's record is closed (%s) in %s: the result root could not take "
                      "%s. Once it can, `chipperf collect %s` puts it back, brings home the "
                      "node files the hosts kept and judges their rounds again", status,
                      self.fallback, self.path, self.path.parent)
        elif self._lost:   # nowhere took it: the closed record is in the console's log
            log.error("the run's closed record, which no file system took: %s",
                      json.dumps(self.data, default=str))


class RunLog(logging.FileHandler):
    """run.log; a result root that fills up mid-run is said once on stderr, not with a
    traceback per line (the console keeps the whole log)."""

    failed = False

    def handleError(self, record: logging.LogRecord) -> None:  # noqa: N802 (logging's name)
        if not self.failed:
            self.failed = True
            print(f"chipperf: cannot write {self.baseFilename} ({sys.exc_info()[1]}); the "
                  "console has the rest of the log", file=sys.stderr)

    def close(self) -> None:
        """Closed whatever the file system does: the lines it did not take are said lost once."""
        try:
            super().close()   # (the file is closed even when its last flush fails)
        except OSError:
            self.handleError(logging.makeLogRecord({}))


def attach_run_log(run_dir: Path, debug: bool) -> logging.Handler:
    handler = RunLog(run_dir / "run.log", encoding="utf-8")
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(message)s"))
    handler.setLevel(logging.DEBUG if debug else logging.INFO)
    logging.getLogger("chipperf").addHandler(handler)
    return handler


def write_reports(run_dir: Path) -> None:
    """summary.json/csv, report.html of ``run_dir`` again; a report bug is logged, never
    raised: it must never lose what was measured."""
    from chipperf.results import report

    try:
        report.write_reports(run_dir)
    except Exception as exc:  # a report bug must never lose what was measured
        log.error("writing reports for %s failed: %s", run_dir, exc)
