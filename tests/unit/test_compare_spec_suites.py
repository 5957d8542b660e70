"""compare lays chips side by side for base/ and operation/: a spec meets itself whatever the
topology (its figure is per chip), with the spec's unit on the row."""

from __future__ import annotations

from synthetic_results import SynthCase, write_run

from chipperf.results.read.collect import collect
from chipperf.results.render.compare import compare, rows_of


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


def test_the_report_table_of_a_spec_run_shows_value_and_share_of_peak(tmp_path) -> None:
    import json

    from chipperf.results.render.console import case_rows
    from chipperf_runtime.perflog import MARKER

    run = write_run(tmp_path, [SynthCase(model="computation-FP32", vendor="nvidia", chip="H100",
                                         nnodes=1, nproc=8)], suite="base")
    for log in run.glob("*/round*/*_noderank0/rank0.out.log"):
        lines = log.read_text().splitlines()
        for i, line in enumerate(lines):
            if '"FINISHED"' in line:
                record = json.loads(line.split(MARKER, 1)[1])
                record["value"].update(suite="base", spec="computation-FP32",
                                       share_of_peak=0.8)
                lines[i] = MARKER + json.dumps(record)
        log.write_text("\n".join(lines) + "\n")
    summary = collect(run).summary
    header, rows = case_rows(summary)
    assert header[5:7] == ["value", "share of spec peak"]
    assert rows[0][6].startswith("80.00%")
    assert summary.cases[0].rounds[0].share_of_peak == 0.8
