"""Result directories for the store tests: chipperf's synthetic runs with a chosen start time
and throughput (run.json's started_at orders a history)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

from synthetic_results import SynthCase, SynthRound, write_run


def case(throughput: float, model: str = "resnet50", chip: str = "A100",
         config: tuple[tuple[str, object], ...] = (("global_batch_size", 256),)) -> SynthCase:
    """Three rounds at 1.00, 1.01 and 0.99 x ``throughput`` (median: ``throughput``)."""
    rounds = (SynthRound(throughput), SynthRound(throughput * 1.01),
              SynthRound(throughput * 0.99))
    return SynthCase(model=model, chip=chip, nnodes=1, nproc=2, seconds=20, rounds=rounds,
                     config=config)


def run(root: Path, day: int, cases: Sequence[SynthCase]) -> Path:
    """A run started on November ``day``, 2023."""
    run_dir = write_run(root, cases, run_id=f"run202311{day:02d}120000")
    data = json.loads((run_dir / "run.json").read_text())
    data["started_at"] = f"2023-11-{day:02d}T12:00:00Z"
    (run_dir / "run.json").write_text(json.dumps(data))
    return run_dir


def series(root: Path, throughputs: Sequence[float], **kwargs: object) -> list[Path]:
    """One run a day from November 1st, one case each."""
    return [run(root, day, [case(t, **kwargs)])  # type: ignore[arg-type]
            for day, t in enumerate(throughputs, start=1)]
