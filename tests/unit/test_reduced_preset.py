"""A case run with a reduced preset is labelled, from the run's own config and counts, in
the console table, summary.md, summary.csv, summary.json and report.html."""

from __future__ import annotations

import json
from pathlib import Path

from synthetic_results import SynthCase, SynthRound, write_run

from chipperf.results.compute.preset import count_text, preset_label, smoke_text
from chipperf.results.entry import report_main
from chipperf.results.read.collect import collect
from chipperf_runtime.perflog import MARKER


def _with_preset(run: Path, record: dict) -> None:
    for log in run.glob("*/round*/*_noderank0/rank0.out.log"):
        lines = log.read_text().splitlines()
        for i, line in enumerate(lines):
            if '"FINISHED"' in line:
                event = json.loads(line.split(MARKER, 1)[1])
                event["value"]["preset"] = record
                lines[i] = MARKER + json.dumps(event)
        log.write_text("\n".join(lines) + "\n")


def test_the_label_is_in_every_output(tmp_path, capsys) -> None:
    case = SynthCase(model="llama3_8b", nnodes=1, nproc=1, rounds=(SynthRound(),))
    run = write_run(tmp_path, [case], suite="inference")
    _with_preset(run, {"name": "reduced", "params": 612_160, "full_params": 8_030_261_248,
                       "changes": {"num_layers": [2, 32], "hidden_size": [64, 4096]}})
    (collected,) = collect(run).summary.cases
    assert collected.preset == "reduced preset: 0.612 M params"
    assert "num_layers 2 (full 32)" in collected.preset_detail
    assert "the full model has 8.03 B params" in collected.preset_detail
    assert report_main(run) == 0
    console = capsys.readouterr().out
    title = f"{collected.key} (reduced preset: 0.612 M params)"
    assert title in console and "hidden_size 64 (full 4096)" in console
    for name in ("summary.md", "summary.csv", "summary.json", "report.html"):
        text = (run / name).read_text()
        assert "reduced preset: 0.612 M params" in text and "num_layers 2 (full 32)" in text, name


def test_a_full_model_has_no_label(tmp_path) -> None:
    (case,) = collect(write_run(tmp_path, [SynthCase()])).summary.cases
    assert case.preset == "" and case.title == case.key
    assert preset_label(None) == ("", "")


def test_counts_read_as_people_write_them() -> None:
    assert [count_text(n) for n in (8_030_261_248, 612_160, 4096)] == ["8.03 B", "0.612 M",
                                                                       "4,096"]


def test_the_smoke_label_says_the_size_this_run_used(tmp_path) -> None:
    for size in (32, 224):
        case = SynthCase(smoke_test="digits check the harness", config=(("image_size", size),),
                         rounds=(SynthRound(),))
        (collected,) = collect(write_run(tmp_path / str(size), [case])).summary.cases
        assert collected.smoke_test == ("digits check the harness (this run: images resized "
                                        f"to {size}x{size}, config image_size)")
    card = {"smoke_test": "8x8 digits", "image_size": 8}
    assert smoke_text({"dataset": card, "config": {"image_size": 224}}).endswith(
        "resized from 8x8 to 224x224, config image_size)")
    assert smoke_text({"dataset": card, "config": {}}) == "8x8 digits"
    assert smoke_text({"dataset": card, "config": {}, "workload": {"image_size": 64}}).endswith(
        "resized from 8x8 to 64x64, config image_size)")     # the case's typed workload
    assert smoke_text({"dataset": None}) == ""
    # synthetic input: no data in the timed window, the figure's own label says so
    assert smoke_text({"dataset": card, "config": {"data_mode": "synthetic", "image_size": 224}}) == ""
