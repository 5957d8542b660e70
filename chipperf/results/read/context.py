"""What reading a run directory knows at each level (chipperf.results.read.collect): the
run's context, a case's, a round's plot series; the names of round and node dirs."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from chipperf.results.compute.measured import MeasuredPeaks
from chipperf.results.compute.power import NodeSeries
from chipperf.results.read.samples import Window

NODE_DIR = re.compile(r"^(?P<host>.+)_noderank(?P<rank>\d+)$")
ROUND_DIR = re.compile(r"^round(?P<number>\d+)$")


@dataclass(frozen=True)
class RoundSeries:
    """Plot series of one round, for the HTML report (not part of summary.json)."""

    case: str
    number: int
    window: Window | None
    started_ms: int | None
    nodes: tuple[NodeSeries, ...]


@dataclass(frozen=True)
class RunContext:
    run_dir: Path
    source: str                       # "chipperf" | "flagperf"
    suite: str | None
    vendor: str | None
    intervals: Mapping[str, float]
    measured: MeasuredPeaks | None = None   # base/ GEMM peaks (chipperf.results.compute.measured)
    version: str | None = None              # the chipperf version that wrote the run


@dataclass(frozen=True)
class CaseContext:
    run: RunContext
    dir_name: str
    vendor: str | None
    chip: str | None
    nnodes: int | None
    nproc: int | None
    flat: bool = False    # FlagPerf inference: <case>/<host>_noderank0/, no round dirs

    @property
    def path(self) -> Path:
        return self.run.run_dir / self.dir_name

    def round_dir(self, number: int) -> Path:
        return self.path if self.flat else self.path / f"round{number}"

    @property
    def suite(self) -> str | None:
        return "inference" if self.flat else self.run.suite
