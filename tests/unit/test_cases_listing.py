"""`chipperf cases` as a person reads it in a terminal."""

from __future__ import annotations

from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def test_chipperf_cases_fits_110_columns_in_every_suite(capsys) -> None:
    """`chipperf cases`: vendors and notes wrapped, sizes with their unit, no column of '?'."""
    from chipperf.commands.cases import print_cases

    for suite in ("training", "inference", "base", "operation"):
        assert print_cases(REPO / suite, suite=suite) == 0
        out = capsys.readouterr().out
        assert max(len(line) for line in out.splitlines()) <= 110, suite
        assert " ? " not in out and "FLOPs/unit" not in out
        if suite == "training":
            assert "/ sample" in out and "/ token" in out
