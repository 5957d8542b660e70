"""`chipperf collect` puts the run, as it stands after the collect, into the results store and
says so (issue 42: a collected run was stale or absent there until a manual ingest)."""

from __future__ import annotations

from store_runs import case, run  # type: ignore[import-not-found]

from chipperf.cli import main
from chipperf.run import leftovers


def test_collect_refreshes_the_run_in_the_store(tmp_path, monkeypatch, capsys) -> None:
    run_dir = run(tmp_path / "result", 1, [case(100.0)])
    monkeypatch.setattr(leftovers, "collect", lambda d: ([], []))   # no host to reach here
    store = tmp_path / "store.sqlite"
    assert main(["collect", str(run_dir), "--db", str(store)]) == 0
    assert f"Results store: added {run_dir.name} in sqlite:///{store}" in capsys.readouterr().out
    assert main(["collect", str(run_dir), "--db", str(store)]) == 0
    assert f"Results store: unchanged {run_dir.name}" in capsys.readouterr().out
    assert main(["collect", str(run_dir), "--no-ingest", "--db", str(tmp_path / "o.sqlite")]) == 0
    assert "Results store" not in capsys.readouterr().out
    assert not (tmp_path / "o.sqlite").exists()
