"""compare lays chips side by side for base/ and operation/: a spec meets itself whatever the
topology (its figure is per chip), with the spec's unit on the row."""

from __future__ import annotations

from chipperf.results.collect import collect
from chipperf.results.compare import compare, rows_of
from chipperf.results.synthetic import SynthCase, write_run


def test_a_spec_on_two_chips_and_topologies_is_one_row(tmp_path) -> None:
    cpu = SynthCase(model="computation-FP32", vendor="cpu", chip="xeon", nnodes=1, nproc=2)
    gpu = SynthCase(model="computation-FP32", vendor="nvidia", chip="H100", nnodes=1, nproc=8)
    runs = [collect(write_run(tmp_path / name, [case], run_id=f"run2026010{i}000000",
                              suite="base")).summary
            for i, (name, case) in enumerate((("cpu", cpu), ("gpu", gpu)))]
    comparison = compare(runs)
    matches = {row.match for row in comparison.rows}
    assert matches == {"computation-FP32:pytorch (base)"}
    _, rows = rows_of(comparison)
    assert [r[1] for r in rows][0].startswith("final metric")
    assert all(c.stat is not None for c in comparison.rows[0].cells)   # both chips in the row
    training = [collect(write_run(tmp_path / f"t{n}", [SynthCase(nproc=n)],
                                  run_id=f"run2026020{n}000000")).summary for n in (2, 8)]
    assert len({row.match for row in compare(training).rows}) == 2   # training keeps topology
