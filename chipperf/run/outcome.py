"""What a run and each of its rounds came to, as run.json records them.

Below the controller, its rounds and chipperf.run.late (which judges a run again when
files come home late): each reads these without importing the others.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping


@dataclass
class RunOutcome:
    run_dir: Path
    cases: dict[str, tuple[str, str]] = field(default_factory=dict)  # case key -> (status, reason)
    kept: list[str] = field(default_factory=list)   # host:dir of node files not collected

    @property
    def ok(self) -> bool:
        return bool(self.cases) and all(s == "succeeded" for s, _ in self.cases.values())


@dataclass
class RoundOutcome:
    number: int
    status: str
    reason: str
    started_ms: int
    finished_ms: int
    nodes: dict[str, str] = field(default_factory=dict)
    containers: dict[str, dict[str, Any]] = field(default_factory=dict)
    lost_hosts: tuple[str, ...] = ()    # hosts whose node ended because they could not be reached
    kept_on_hosts: dict[str, str] = field(default_factory=dict)  # node -> host:dir not collected
    engine_gone: tuple[str, ...] = ()   # hosts whose container engine stopped or went away
    port_in_use: dict[str, int | None] = field(default_factory=dict)  # host -> port taken there
    kinds: dict[str, str] = field(default_factory=dict)  # node -> kind of its failure, if any

    def to_dict(self) -> dict[str, Any]:
        entry = {"number": self.number, "status": self.status, "reason": self.reason,
                 "started_ms": self.started_ms, "finished_ms": self.finished_ms,
                 "nodes": self.nodes, "containers": self.containers,
                 "node_times": node_times(self.started_ms, self.containers)}
        if self.lost_hosts:
            entry["lost_hosts"] = list(self.lost_hosts)
        if self.kept_on_hosts:
            entry["kept_on_hosts"] = dict(self.kept_on_hosts)
        if self.engine_gone:
            entry["engine_gone"] = list(self.engine_gone)
        if self.port_in_use:
            entry["port_in_use"] = dict(self.port_in_use)
        if self.kinds:
            entry["kinds"] = dict(self.kinds)
        return entry

    @classmethod
    def from_dict(cls, entry: Mapping[str, Any]) -> "RoundOutcome":
        """A round as run.json records it (to_dict's inverse)."""
        return cls(entry["number"], entry["status"], entry.get("reason", ""),
                   entry.get("started_ms", 0), entry.get("finished_ms", 0),
                   dict(entry.get("nodes", {})), dict(entry.get("containers", {})),
                   tuple(entry.get("lost_hosts", ())), dict(entry.get("kept_on_hosts", {})),
                   tuple(entry.get("engine_gone", ())),
                   {host: port for host, port in entry.get("port_in_use", {}).items()},
                   dict(entry.get("kinds", {})))


def node_times(round_started_ms: int, containers: Mapping[str, Mapping[str, Any]]
               ) -> dict[str, dict[str, float | None]]:
    """Per node, seconds from the round's start to its case container's start and end, and
    the end's lag behind the first node to end: in a synchronous round every node waits
    for the slowest, so a slow host shows as the node that starts and ends last."""
    def since(ms: Any) -> float | None:
        return round((ms - round_started_ms) / 1000, 2) if isinstance(ms, int) else None

    ends = [life["finished_ms"] for life in containers.values()
            if isinstance(life.get("finished_ms"), int)]
    return {node: {"start_s": since(life.get("started_ms")),
                   "end_s": since(life.get("finished_ms")),
                   "end_lag_s": (round((life["finished_ms"] - min(ends)) / 1000, 2)
                                 if isinstance(life.get("finished_ms"), int) else None)}
            for node, life in containers.items()}
