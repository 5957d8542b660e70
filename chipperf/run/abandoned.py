"""A run's record (run.json) mended after its master is gone: put back from the fallback copy
the result root could not take, closed as canceled when the master ended without closing it,
and told of node dirs that came home late (their rounds judged again). Used by
chipperf.run.leftovers when it sweeps the hosts (``collect``, ``clean``, a run's preflight).
"""

from __future__ import annotations

import json
import logging
import threading
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Sequence

log = logging.getLogger("chipperf")
COLLECT = "chipperf collect"
# One host's sweep at a time rewrites a run.json (the hosts of a run are swept in parallel)
RECORD_LOCK = threading.Lock()


def restore_fallback(run_dir: Path) -> bool:
    """The record the result root could not take (results.layout.fallback_record) goes back
    into the run dir; True when there was one. OSError when the run dir cannot take it yet."""
    from chipperf.results.layout import atomic_write, fallback_record

    try:
        run_id = json.loads((run_dir / "run.json").read_text()).get("run_id") or run_dir.name
    except (OSError, ValueError):
        run_id = run_dir.name
    fallback = fallback_record(run_id)
    if fallback is None:
        return False
    atomic_write(run_dir / "run.json", fallback.read_bytes())
    fallback.unlink()
    log.info("%s: run.json put back from %s", run_dir, fallback)
    return True


def close_abandoned(run_dir: Path, swept_by: str = COLLECT) -> bool:
    """A record left "running" by a master that is gone (killed, its machine down) is closed
    as canceled, naming that and who swept it, with every unfinished case and node dir.
    True when it closed it; a master alive, or one it cannot tell (no lock), is left alone."""
    from chipperf.run.lease import master_alive

    path = run_dir / "run.json"
    with RECORD_LOCK:
        record = json.loads(path.read_text())
        if record.get("status") != "running" or master_alive(run_dir) is not False:
            return False
        now = datetime.now(timezone.utc).isoformat(timespec="seconds")
        why = _abandoned_why(run_dir, swept_by)
        _cancel_unfinished(run_dir, record, why)
        record.update(status="canceled", finished_at=now,
                      error={"type": "MasterGone", "message": why},
                      swept={"by": swept_by, "at": now})
        from chipperf.results.layout import write_json

        write_json(path, record)
    log.warning("%s: %s; closed as canceled", run_dir, why)
    return True


def _abandoned_why(run_dir: Path, swept_by: str) -> str:
    from chipperf.run.lease import master_of

    who = master_of(run_dir)
    return (f"the run's master (pid {who.get('pid')} on {who.get('node')}) ended without "
            f"closing the record (killed, or its machine went down); closed by {swept_by}")


def _cancel_unfinished(run_dir: Path, record: dict[str, Any], why: str) -> None:
    from chipperf.results.layout import read_status, write_status

    for case in record.get("cases", {}).values():
        if case.get("status") in ("pending", "running"):
            case.update(status="canceled", reason=why)
    for node in run_dir.glob("*/round*/*_noderank*"):
        if read_status(node)[0] in ("starting", "running"):
            write_status(node, "canceled", why)
    from chipperf.run.late import list_unrecorded_rounds

    for listed in list_unrecorded_rounds(run_dir, record, why):
        log.warning("%s: %s was not in the record (its master ended mid-round): listed as "
                    "canceled", run_dir, listed)


def mark_late(run_dir: Path, host: str, nodes: Sequence[str]) -> list[str]:
    """run.json ``late``: node dir -> the host and when its files came home; the rounds
    those files complete are judged again from them (chipperf.run.late) and the reports written
    again. Returns a line per round judged again; OSError when run.json cannot be written."""
    from chipperf.results.layout import write_json
    from chipperf.run.late import rejudge
    from chipperf.run.record import write_reports

    path = run_dir / "run.json"
    with RECORD_LOCK:
        record = json.loads(path.read_text())
        now = datetime.now(timezone.utc).isoformat(timespec="seconds")
        record.setdefault("late", {}).update({rel: {"host": host, "collected_at": now}
                                              for rel in nodes})
        judged = rejudge(run_dir, record)
        write_json(path, record)
        write_reports(run_dir)   # in the lock: the last host's reports have every host's files
    log.info("[%s] %d node dir(s) of %s collected late: %s", host, len(nodes), run_dir.name,
             ", ".join(nodes))
    for line in judged:
        log.info("[%s] %s/%s", host, run_dir.name, line)
    return judged
