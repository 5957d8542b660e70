# ruff: noqa: E501 - real PerfLog lines are long
"""A round its deadline cut: the throughput of the steps it completed, from rank 0's STEP_END
lines as the training driver prints them; a performance-mode round counts though it does not
converge."""

from __future__ import annotations

import io
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path[:0] = [p for p in (str(REPO), str(REPO / "training" / "benchmarks")) if p not in sys.path]

from synthetic_results import SynthCase, SynthRound, write_run  # noqa: E402

from chipperf.results.compute.cut import StepTrail, cut_fields  # noqa: E402
from chipperf.results.render.console import console  # noqa: E402
from chipperf.results.report import summarize  # noqa: E402
from chipperf_runtime.perflog import parse_lines  # noqa: E402
from chipperf_runtime.training.driver import Driver, Metric  # noqa: E402

# What the driver printed (log_every_steps 10, 2 ranks x 16 samples a step, warm-up 10 steps)
# before the round's deadline stopped it: no TRAIN_END, no FINISHED.
CUT_LOG = """\
[PerfLog] {"event": "TRAIN_START", "value": {"global_batch_size": 32, "work_unit": "samples", "run_mode": {"mode": "convergence", "warmup_steps": 0, "timed_steps": 0}}, "metadata": {"file": "train.py", "lineno": 135, "time_ms": 1700000000000, "rank": 0}}
[PerfLog] {"event": "STEP_END", "value": {"step": 10, "epoch": 1, "loss": 2.1, "lr": 0.1, "throughput_so_far": 40.0, "work_so_far": 320, "train_elapsed_s": 8.0, "warmup_steps": 0, "work_unit": "samples"}, "metadata": {"file": "train.py", "lineno": 120, "time_ms": 1700000008000, "rank": 0}}
step 10 loss 2.1
[PerfLog] {"event": "STEP_END", "value": {"step": 20, "epoch": 1, "loss": 1.9, "lr": 0.1, "throughput_so_far": 53.3, "work_so_far": 640, "train_elapsed_s": 12.0, "warmup_steps": 0, "work_unit": "samples"}, "metadata": {"file": "train.py", "lineno": 120, "time_ms": 1700000012000, "rank": 0}}
[PerfLog] {"event": "STEP_END", "value": {"step": 30, "epoch": 1, "loss": 1.7, "lr": 0.1, "throughput_so_far": 60.0, "work_so_far": 960, "train_elapsed_s": 16.0, "warmup_steps": 0, "work_unit": "samples"}, "metadata": {"file": "train.py", "lineno": 120, "time_ms": 1700000016000, "rank": 0}}
[PerfLog] {"event": "STEP_END", "value": {"step": 40, "epoch": 1, "loss": 1.5, "lr": 0.1, "throughput_so_far": 64.0, "work_so_far": 1280, "train_elapsed_s": 20.0, "warmup_steps": 0, "work_unit": "samples"}, "metadata": {"file": "train.py", "lineno": 120, "time_ms": 1700000020000, "rank": 0}}
"""


def trail_of(text: str) -> StepTrail:
    trail = StepTrail()
    events, problems = parse_lines(text.splitlines())
    assert problems == []
    for event in events:
        trail.keep(event)
    return trail


def test_cut_round_throughput_is_the_steady_span_of_its_completed_steps() -> None:
    fields, said = cut_fields(trail_of(CUT_LOG), "still running after the round deadline")
    # steps 10 -> 40: 960 samples in 12 s (the slow first 10 steps are left out)
    assert fields["throughput"].raw == pytest.approx(80.0)
    assert fields["throughput"].unit == "samples/s"
    assert (fields["work_done"], fields["train_time_s"]) == (960, 12.0)
    assert fields["converged"] is False and fields["cut"] is True
    assert "cut, not converged" in said and "steps 10-40" in said


def test_one_progress_event_gives_its_whole_pace_and_says_so() -> None:
    one = "\n".join(CUT_LOG.splitlines()[:2])
    fields, said = cut_fields(trail_of(one), "cut")
    assert fields["throughput"].raw == pytest.approx(40.0)
    assert "start-up and warm-up included" in said


def test_warmup_steps_are_left_out_and_no_progress_is_said() -> None:
    warm = CUT_LOG.replace('"warmup_steps": 0, "work_unit"', '"warmup_steps": 20, "work_unit"')
    fields, _ = cut_fields(trail_of(warm), "cut")
    assert (fields["work_done"], fields["train_time_s"]) == (320, 4.0)   # steps 30 -> 40
    nothing, why = cut_fields(trail_of(CUT_LOG.splitlines()[0]), "cut by its deadline")
    assert nothing == {} and "no STEP_END with work_so_far" in why


def test_driver_lines_of_a_cut_round_give_its_throughput(tmp_path: Path) -> None:
    """The driver's own output, cut before TRAIN_END, in a timed-out round of a run dir."""
    case = tmp_path / "case"
    (case / "config").mkdir(parents=True)
    (case / "config" / "_base.py").write_text("from chipperf_runtime.training.driver.runmode_base import *\nmax_steps = None\n")
    (case / "config" / "mutable_params.py").write_text("mutable_params = []\n")
    out, clock = io.StringIO(), Clock()
    d = Driver.start("resnet50", case, ["--data_dir", str(tmp_path), "--output_dir", str(tmp_path)],
                     environ={"RANK": "0", "WORLD_SIZE": "4"}, clock=clock, stream=out)
    d.train_start(work_unit="samples")
    for step in range(1, 51):
        with d.compute():
            clock.t += 0.25
        d.step_end(step, work=step * 8)           # 8 samples a step on this rank, 4 ranks
    run = write_run(tmp_path / "runs", [SynthCase(rounds=(
        SynthRound(), SynthRound(status="timeout", finished=False)), seconds=5)])
    log = next((run / "resnet50-pytorch_2.13-A100-2x2" / "round2").glob("*noderank0")) \
        / "rank0.out.log"
    log.write_text(out.getvalue())
    summary = summarize(run)
    cut = summary.cases[0].rounds[1]
    assert cut.status == "timeout" and cut.cut is True and cut.converged is False
    assert cut.throughput.raw == pytest.approx(128.0)   # 4 ranks x 8 samples / 0.25 s
    assert cut.work_done == 1280 and cut.train_time_s == pytest.approx(10.0)
    assert [e.round for e in summary.cases[0].excluded] == [2]      # shown, not averaged
    assert "round 2 " in console(summary) and "cut, not converged" in console(summary)
    from chipperf.results.render.markdown import case_section

    assert any(line.startswith("Round 2 ") and "cut, not converged" in line
               and "steps 10-50" in line
               for line in case_section(summary.cases[0]))


class Clock:
    def __init__(self) -> None:
        self.t = 50.0

    def __call__(self) -> float:
        return self.t


def test_a_performance_round_counts_though_it_does_not_converge(tmp_path: Path) -> None:
    out, clock = io.StringIO(), Clock()
    case = tmp_path / "case"
    (case / "config").mkdir(parents=True)
    (case / "config" / "_base.py").write_text("from chipperf_runtime.training.driver.runmode_base import *\nmax_steps = None\n")
    (case / "config" / "mutable_params.py").write_text("mutable_params = []\n")
    d = Driver.start("resnet50", case, ["--data_dir", str(tmp_path), "--output_dir", str(tmp_path),
                                        "--set", "run_mode=performance", "--set",
                                        "perf_warmup_steps=2", "--set", "timed_steps=8"],
                     environ={"RANK": "0", "WORLD_SIZE": "4"}, clock=clock, stream=out)
    d.train_start(work_unit="samples")
    step = 0
    while True:
        step += 1
        with d.compute():
            clock.t += 0.5
        if d.step_done(step, step * 8):
            break
    d.train_end()
    d.finish(work_done=4 * 8 * step, work_unit="samples", metric=Metric("top1", None, 0.75),
             flops_per_unit=12.3e9, dtype="bf16", peak_memory_bytes=None)
    run = write_run(tmp_path / "runs", [SynthCase(rounds=(SynthRound(),), seconds=5)])
    log = next((run / "resnet50-pytorch_2.13-A100-2x2" / "round1").glob("*noderank0")) \
        / "rank0.out.log"
    log.write_text(out.getvalue())
    summary = summarize(run)
    case_result = summary.cases[0]
    first = case_result.rounds[0]
    assert first.run_mode == "performance: 2 warm-up + 8 timed steps"
    assert first.throughput.raw == pytest.approx(64.0) and first.work_done == 256
    assert first.mfu == pytest.approx(64.0 * 12.3e9 / (312e12 * 4))
    assert case_result.counted == (1,) and case_result.run_mode.startswith("performance")
    assert "run mode performance: 2 warm-up + 8 timed steps" in console(summary)
    from chipperf.results.render.markdown import case_section

    assert "Run mode: performance: 2 warm-up + 8 timed steps (throughput and MFU from the " \
        "timed steps)." in case_section(case_result)


def test_a_performance_rounds_monitor_window_is_its_timed_steps(tmp_path: Path) -> None:
    from chipperf.results.compute.perf import _timed_window

    fields = {"train_start_ms": 1_000_000, "train_end_ms": 1_400_000}
    reasons: dict[str, str] = {}
    _timed_window(fields, {"mode": "performance", "timed_window_s": 120.0}, reasons)
    assert fields["train_start_ms"] == 1_280_000 and "warm-up left out" in reasons["monitor_window"]
    untouched = {"train_start_ms": 5, "train_end_ms": 9}
    _timed_window(untouched, {"mode": "convergence"}, {})
    assert untouched == {"train_start_ms": 5, "train_end_ms": 9}


def test_synthetic_input_is_labelled_in_every_table(tmp_path: Path) -> None:
    from chipperf.results.read.collect import collect
    from chipperf.results.render.html import report_html
    from chipperf.results.render.markdown import case_section

    run = write_run(tmp_path / "runs", [SynthCase(rounds=(SynthRound(),), seconds=5)])
    log = next((run / "resnet50-pytorch_2.13-A100-2x2" / "round1").glob("*noderank0")) \
        / "rank0.out.log"
    text = log.read_text().replace('"dtype": "bf16"', '"dtype": "bf16", "data_mode": "synthetic"')
    log.write_text(text)
    summary = summarize(run)
    case_result = summary.cases[0]
    assert case_result.rounds[0].data_mode == "synthetic" and case_result.synthetic
    row = next(line for line in console(summary).splitlines() if "resnet50" in line)
    assert "samples/s [synthetic: compute only]" in row
    assert any("**synthetic: compute only**" in line for line in case_section(case_result))
    html = report_html(collect(run))
    assert "(synthetic: compute only)" in html and "[synthetic: compute only]" in html
