"""compare lays chips side by side for base/ and operation/: a spec meets itself on another
chip of the same topology, with the spec's unit on the row; a run mode, a topology or a
reduced preset never shares a row with another (issue 42)."""

from __future__ import annotations

from synthetic_results import SynthCase, write_run

from chipperf.results.read.collect import collect
from chipperf.results.render.compare import compare, rows_of


def test_a_spec_on_two_chips_is_one_row_and_another_topology_another(tmp_path) -> None:
    cpu = SynthCase(model="computation-FP32", vendor="cpu", chip="xeon", nnodes=1, nproc=2)
    gpu = SynthCase(model="computation-FP32", vendor="nvidia", chip="H100", nnodes=1, nproc=2)
    wide = SynthCase(model="computation-FP32", vendor="nvidia", chip="H100", nnodes=1, nproc=8)
    runs = [collect(write_run(tmp_path / name, [case], run_id=f"run2026010{i}000000",
                              suite="base")).summary
            for i, (name, case) in enumerate((("cpu", cpu), ("gpu", gpu), ("wide", wide)))]
    comparison = compare(runs)
    matches = [row.match for row in comparison.rows]
    assert set(matches) == {"computation-FP32:pytorch (base) 1x2",
                            "computation-FP32:pytorch (base) 1x8"}
    _, rows = rows_of(comparison)
    assert [r[1] for r in rows][0].startswith("final metric")
    one_by_two = comparison.rows[matches.index("computation-FP32:pytorch (base) 1x2")]
    assert [c.stat is not None for c in one_by_two.cells] == [True, True, False]  # both chips
    training = [collect(write_run(tmp_path / f"t{n}", [SynthCase(nproc=n)],
                                  run_id=f"run2026020{n}000000")).summary for n in (2, 8)]
    assert len({row.match for row in compare(training).rows}) == 2   # training keeps topology


def test_a_run_mode_or_a_preset_gets_a_row_of_its_own(tmp_path) -> None:
    from dataclasses import replace

    real = collect(write_run(tmp_path / "a", [SynthCase()], run_id="run20260301000000")).summary
    timed, tiny = (replace(real, run_id=run_id, cases=tuple(replace(c, **changed)
                                                            for c in real.cases))
                   for run_id, changed in (
                       ("run20260302000000", {"run_mode": "performance: 5 warm-up + 12 timed steps"}),
                       ("run20260303000000", {"preset": "tiny preset: 0.14 M params"})))
    matches = {row.match for row in compare([real, timed, tiny]).rows}
    assert matches == {"resnet50:pytorch 2x2",
                       "resnet50:pytorch 2x2 (performance: 5 warm-up + 12 timed steps)",
                       "resnet50:pytorch 2x2 [tiny preset: 0.14 M params]"}


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
