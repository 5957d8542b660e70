"""A node of a round while the round goes: the round's settings, the node's state, its
status file in the run dir.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

from chipperf.plan import NodePlan
from chipperf.results import layout
from chipperf.run.holdwatch import HoldWatch

log = logging.getLogger("chipperf")

# NodeState.kind of a node whose case ended well and whose files did not reach the run dir
# (a full or read-only result root, a host that stopped answering): they stay on the host,
# and chipperf.run.late judges the node again when `chipperf collect` brings them home
UNCOLLECTED = "uncollected"


@dataclass(frozen=True)
class RoundSettings:
    run_dir: Path
    image: str                                  # the built tag of the case's image
    sensors: Mapping[str, frozenset[str]]       # host -> the sensor paths it has (preflight)
    lost_after_s: float = 60.0                  # a round's host silent this long is lost
    suite: str = "training"                     # progress lines speak the suite's words
    hold: HoldWatch = field(default_factory=HoldWatch)   # the executor's hold on the hosts


@dataclass
class NodeState:
    node: NodePlan
    status: str = "starting"
    reason: str = ""
    kind: str = ""                      # of a failure: exited, unreachable, timeout, internal
    error: BaseException | None = None  # the exception behind it, kept for --debug and run.log
    kept_on: str = ""                   # host:dir where its files stayed (not collected)
    engine_gone: str = ""               # why its host's container engine no longer answers
    port_in_use: int | None = None      # the port a log said was taken (kind PORT; None: unsaid)
    container: Any = None
    monitor: Any = None
    lifetime: dict[str, Any] = field(default_factory=dict)
    stop_grace_s: float = 10.0          # SIGTERM -> SIGKILL at the round's end (1: hosts no longer held)

    def finish(self, status: str, reason: str = "", kind: str = "") -> None:
        if self.status in ("starting", "running"):
            self.status, self.reason, self.kind = status, reason, kind


def write_status(local: Path, status: str, reason: str = "") -> None:
    """The node dir's status file; a result root that filled up is said, not raised: the
    node's files stay on its host (see chipperf.run.roundend)."""
    try:
        layout.write_status(local, status, reason)
    except OSError as exc:
        log.error("could not write %s/status (%s): the result root is full or unusable", local, exc)


def local_dir(s: RoundSettings, st: NodeState) -> Path:
    return s.run_dir / st.node.result_rel
