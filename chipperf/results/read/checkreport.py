"""What ``chipperf check`` found in a run directory: every problem as ``path[:line]: what``,
and how much it read (cases, rounds, nodes, PerfLog and monitor lines)."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Report:
    problems: list[str] = field(default_factory=list)
    cases: int = 0
    rounds: int = 0
    nodes: int = 0
    perflog_lines: int = 0
    monitor_lines: int = 0

    def add(self, where: str, message: str) -> None:
        self.problems.append(f"{where}: {message}")
