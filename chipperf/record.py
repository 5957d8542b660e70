"""The run's own record: run.json (resolved config, versions, every case's status) and run.log."""

from __future__ import annotations

import dataclasses
import logging
import os
import platform
import sys
import threading
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from chipperf import __version__
from chipperf.config.model import ClusterConfig, TestConfig
from chipperf.plan import CasePlan, RunPlan
from chipperf.results.layout import write_json

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
        self._fell_back = False
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
                "status": "pending", "reason": "", "rounds": []}

    def save(self) -> None:
        """Atomically; when the result root cannot take it (full, gone, read-only), under
        fallback_dir() instead, said once in the log."""
        with self._lock:
            try:
                write_json(self.path, self.data)
                return
            except OSError as exc:
                problem = exc
            fallback = fallback_dir() / f"{self.data['run_id']}.run.json"
            write_json(fallback, self.data)
            if not self._fell_back:
                self._fell_back = True
                log.error("run.json could not be written to %s (%s); it is written to %s "
                          "until the result root takes it again", self.path, problem, fallback)

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


def fallback_dir() -> Path:
    """Where a run's record goes when its result root cannot take it."""
    state = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(state) / "chipperf" / "runs"


class RunLog(logging.FileHandler):
    """run.log; a result root that fills up mid-run is said once on stderr, not with a
    traceback per line (the console keeps the whole log)."""

    failed = False

    def handleError(self, record: logging.LogRecord) -> None:  # noqa: N802 (logging's name)
        if not self.failed:
            self.failed = True
            print(f"chipperf: cannot write {self.baseFilename} ({sys.exc_info()[1]}); the "
                  "console has the rest of the log", file=sys.stderr)


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
