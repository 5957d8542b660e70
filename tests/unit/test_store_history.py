"""chipperf.store.history: the noise band, a planted regression flagged, a noise-level change
not flagged, fingerprint grouping, and the CLI's exit codes."""

from __future__ import annotations

from pathlib import Path

import pytest
import sqlalchemy as sa
from store_runs import case, run, series

from chipperf import cli
from chipperf.store import db
from chipperf.store.history import BandConfig, Point, history, judge, noise_band
from chipperf.store.ingest import ingest_dir


def _store(root: Path, dirs: list[Path]) -> sa.Engine:
    engine = db.open_store(f"sqlite:///{root / 'store.sqlite'}")
    for d in dirs:
        ingest_dir(engine, d)
    return engine


def _points(values: list[float]) -> list[Point]:
    return [Point(f"run{i}", f"2023-11-{i + 1:02d}", v, "") for i, v in enumerate(values)]


def test_noise_band_is_median_plus_minus_k_scaled_mads_with_a_floor() -> None:
    band = noise_band([100.0, 102.0, 98.0, 101.0, 99.0], BandConfig(k=3.0, floor=0.0))
    assert band.median == 100.0
    assert band.high - 100.0 == pytest.approx(3 * 1.4826 * 1.0)
    flat = noise_band([100.0, 100.0, 100.0], BandConfig(floor=0.02))
    assert (flat.low, flat.high) == (pytest.approx(98.0), pytest.approx(102.0))


def test_judge_flags_outside_the_band_by_direction_and_needs_min_runs() -> None:
    judged = judge(_points([100, 101, 99, 100, 80, 130]), "throughput_raw",
                   BandConfig(window=4, min_runs=3))
    assert [j.verdict for j in judged] == ["", "", "", "", "regression", "improvement"]
    assert judged[2].band is None and judged[3].band is not None
    assert judged[4].ratio == pytest.approx(0.8)
    assert judged[4].compared == ("run0", "run1", "run2", "run3")
    # lower is better: a rise in energy per unit of work is the regression
    energy = judge(_points([5.0, 5.0, 5.0, 6.0]), "energy_per_unit_j")
    assert energy[-1].verdict == "regression"


def test_a_planted_regression_is_flagged_against_the_runs_before_it(tmp_path: Path) -> None:
    engine = _store(tmp_path, series(tmp_path, [1000, 1012, 995, 1004, 998, 850]))
    (s,) = history(engine, "resnet50")
    assert [j.verdict for j in s.points] == ["", "", "", "", "", "regression"]
    last = s.latest
    assert last.ratio == pytest.approx(850 / 1001, rel=1e-3)
    assert last.compared == ("run20231101120000", "run20231102120000", "run20231103120000",
                             "run20231104120000", "run20231105120000")


def test_a_noise_level_change_is_not_flagged(tmp_path: Path) -> None:
    engine = _store(tmp_path, series(tmp_path, [1000, 1012, 995, 1004, 998, 990]))
    (s,) = history(engine, "resnet50")
    assert all(j.verdict == "" for j in s.points)
    assert s.latest.band is not None and s.latest.band.low < 990 < s.latest.band.high


def test_runs_of_another_workload_or_chip_are_their_own_series(tmp_path: Path) -> None:
    dirs = series(tmp_path, [1000, 1000, 1000, 1000])
    # a later run at another global batch: another fingerprint, so not a regression of the first
    dirs.append(run(tmp_path, 5, [case(500.0, config=(("global_batch_size", 64),)),
                                  case(300.0, chip="H100")]))
    engine = _store(tmp_path, dirs)
    found = history(engine, "resnet50")
    assert sorted((s.chip, len(s.points)) for s in found) == [("A100", 1), ("A100", 4),
                                                               ("H100", 1)]
    assert len({s.fingerprint_key for s in found if s.chip == "A100"}) == 2
    assert all(j.verdict == "" for s in found for j in s.points)
    assert [s.chip for s in history(engine, "resnet50", chip="H100")] == ["H100"]


def test_cli_history_fail_on_regression_exit_code(tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    _store(tmp_path, series(tmp_path, [1000, 1012, 995, 1004, 850])).dispose()
    db_url = f"sqlite:///{tmp_path / 'store.sqlite'}"
    assert cli.main(["history", "resnet50", "--db", db_url]) == 0
    assert cli.main(["history", "resnet50", "--db", db_url, "--fail-on-regression"]) == 1
    out = capsys.readouterr().out
    assert "REGRESSION: ratio 0.848 to the median of run20231101120000" in out and "global_batch=256" in out
    assert cli.main(["history", "nosuchmodel", "--db", db_url]) == 2
    assert "no headline figure of case 'nosuchmodel'" in capsys.readouterr().out


def test_cli_history_on_a_missing_store_says_to_ingest_first(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["history", "resnet50", "--result-root", str(tmp_path)]) == 2
    assert "run `chipperf ingest RUN_DIR` first" in capsys.readouterr().out
