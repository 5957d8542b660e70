"""Convergence over seeds: per-round seed and steps to target from rank 0's PerfLog events,
MLPerf's olympic statistics over the rounds (chipperf/results/compute/convergence.py), the
run-directory reader (chipperf/results/read/seeds.py) and the driver's seed_per_round."""

from __future__ import annotations

import io
import json
import math
from pathlib import Path

import pytest

from chipperf.results.compute.convergence import (
    RoundConvergence,
    converge_stats,
    round_convergence,
)
from chipperf.results.read import seeds
from chipperf_runtime.perflog import PerfLogger, parse_lines
from chipperf_runtime.training.driver.case import round_seed
from chipperf_runtime.training.driver.config import load_config


def round_log(seed: int, reached_at: int | None, batch: int = 32) -> str:
    """Rank 0's PerfLog of one round: evaluations every 10 steps, on target at ``reached_at``."""
    out = io.StringIO()
    log = PerfLogger(rank=0, stream=out)
    log.event("SUBMIT_INFO", {"config": {"seed": seed, "global_batch_size": batch}})
    last = reached_at or 30
    for step in range(10, last + 1, 10):
        log.event("EVALUATE", {"step": step, "value": 0.1, "reached": step == reached_at})
    log.event("FINISHED", {"converged": reached_at is not None})
    return out.getvalue()


def rounds_of(*reached: int | None) -> list[RoundConvergence]:
    return [round_convergence(n, parse_lines(round_log(1233 + n, r).splitlines())[0])
            for n, r in enumerate(reached, start=1)]


def test_a_round_converges_at_its_first_evaluation_on_target() -> None:
    (one,) = rounds_of(40)
    assert one == RoundConvergence(1, 1234, True, 40, 40 * 32)
    (never,) = rounds_of(None)
    assert (never.converged, never.steps, never.why) == \
        (False, None, "no EVALUATE reached the target")


def test_olympic_scoring_drops_the_fastest_and_the_slowest_round() -> None:
    stats = converge_stats(rounds_of(40, 20, 30, 90, 30))
    assert stats.values == (40, 20, 30, 90, 30)
    assert stats.outliers == (2, 4)                    # 20 steps and 90 steps
    assert stats.olympic_mean == pytest.approx((40 + 30 + 30) / 3)
    assert stats.mean == pytest.approx(42) and (stats.min, stats.max) == (20, 90)
    assert stats.stdev == pytest.approx(math.sqrt(sum((v - 42) ** 2 for v in
                                                      (40, 20, 30, 90, 30)) / 5))
    assert stats.valid and stats.distinct_seeds and stats.notes == ()


def test_one_round_off_target_is_dropped_as_the_slowest_two_invalidate_the_set() -> None:
    one = converge_stats(rounds_of(40, None, 30, 20))
    assert one.outliers == (4, 2) and one.olympic_mean == pytest.approx(35) and one.valid
    two = converge_stats(rounds_of(40, None, None, 20))
    assert two.olympic_mean is None and not two.valid and two.converged == 2


def test_samples_to_target_and_the_notes_on_too_few_or_shared_seeds() -> None:
    assert converge_stats(rounds_of(40, 20, 30), "samples").values == (1280, 640, 960)
    shared = [RoundConvergence(n, 7, True, 10) for n in (1, 2)]
    notes = converge_stats(shared).notes
    assert notes[0] == "2 round(s): olympic scoring needs at least 3"
    assert "rounds share a seed" in notes[1] and not converge_stats(shared).distinct_seeds


def test_the_reader_walks_a_result_directory(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    for number, reached in enumerate((40, 20, 30), start=1):
        node = tmp_path / "bert-case" / f"round{number}" / "h1_noderank0"
        node.mkdir(parents=True)
        (node / "rank0.out.log").write_text(round_log(1233 + number, reached))
    (tmp_path / "logs").mkdir()                         # a dir without rounds: not a case
    assert seeds.main([str(tmp_path), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert list(out) == ["bert-case"]
    assert (out["bert-case"]["seeds"], out["bert-case"]["values"]) == \
        ([1234, 1235, 1236], [40, 20, 30])
    assert seeds.main([str(tmp_path)]) == 0
    assert "olympic mean 30, mean 30" in capsys.readouterr().out
    assert seeds.main([str(tmp_path / "nope")]) == 2


def test_seed_per_round_adds_the_round_to_the_seed() -> None:
    base = {"seed": 1234, "seed_per_round": False}
    config = load_config(base, {"seed_per_round"}, {"seed_per_round": True})
    assert round_seed(config, {"CHIPPERF_ROUND": "3"}) == 1236
    assert round_seed(config, {}) is None                # outside the engine: the seed as set
    assert round_seed(load_config(base, set()), {"CHIPPERF_ROUND": "3"}) is None
