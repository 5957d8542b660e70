"""Comparing runs: matching across chips, ratios to a baseline, the noise rule."""

from __future__ import annotations

import pytest
from synthetic_results import SynthCase, SynthRound, write_run

from chipperf.results.compute.aggregate import stat
from chipperf.results.render.compare import compare, comparison_markdown, within_noise
from chipperf.results.report import summarize


def rounds(*throughputs: float) -> tuple[SynthRound, ...]:
    return tuple(SynthRound(t) for t in throughputs)


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    root = tmp_path_factory.mktemp("compare")
    a100 = write_run(root, [SynthCase(seconds=5, rounds=rounds(1000, 1010, 990)),
                            SynthCase(model="bert", seconds=5, rounds=rounds(500, 505))],
                     run_id="run20240101000000")
    h100 = write_run(root, [SynthCase(chip="H100", framework="pytorch_2.4", seconds=5,
                                      rounds=rounds(1995, 2005, 2000))],
                     run_id="run20240102000000")
    again = write_run(root, [SynthCase(seconds=5, rounds=rounds(1003, 1012, 995))],
                      run_id="run20240103000000")
    single = write_run(root, [SynthCase(seconds=5, rounds=rounds(1500))],
                       run_id="run20240104000000")
    return [summarize(r) for r in (a100, h100, again, single)]


def throughput_row(comparison, match="resnet50:pytorch 2x2"):
    return next(r for r in comparison.rows if r.match == match and r.figure == "throughput_raw")


def test_same_model_family_and_topology_meet_in_one_row(runs):
    comparison = compare(runs, baseline=0)
    assert comparison.columns[:2] == ("run20240101000000 (nvidia/A100)",
                                      "run20240102000000 (nvidia/H100)")
    row = throughput_row(comparison)
    assert row.unit == "samples/s"
    base, h100, again, single = row.cells
    assert base.ratio is None and base.stat.mean == pytest.approx(1000.0)
    assert h100.ratio == pytest.approx(2.0) and h100.noise == ""
    assert again.ratio == pytest.approx(1003.333 / 1000, rel=1e-4)
    assert again.noise == "~ noise"
    assert single.noise == "? n<2"
    bert = throughput_row(comparison, "bert:pytorch 2x2")
    assert bert.cells[1].stat is None and bert.cells[0].stat.n == 2


def test_baseline_can_be_any_run(runs):
    row = throughput_row(compare(runs, baseline=1))
    assert row.cells[0].ratio == pytest.approx(0.5)
    with pytest.raises(ValueError, match="baseline 4 is not an index of the"):
        compare(runs, baseline=4)


def test_noise_rule():
    base = stat([100.0, 101.0, 99.0])                   # CV 1%
    assert within_noise(stat([100.5, 101.5, 99.5]), base) == "~ noise"   # ranges overlap
    assert within_noise(stat([101.2, 101.6, 102.0]), base) == "~ noise"  # |diff| 1.6 < 2 x 1%
    assert within_noise(stat([105.0, 105.5, 106.0]), base) == ""         # 5.5% apart
    assert within_noise(stat([105.0]), base) == "? n<2"


def test_markdown_states_the_rule(runs):
    text = comparison_markdown(compare(runs[:2], baseline=0))
    assert "| resnet50:pytorch 2x2 | throughput (samples/s) |" in text
    assert "x2.000" in text and "[baseline]" in text
    assert "min-max ranges overlap, or |diff| < 2 x larger CV x baseline" in text
