"""Performance mode of the training driver: the knobs, bad input, the timed window, FINISHED."""

from __future__ import annotations

import io
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path[:0] = [p for p in (str(REPO), str(REPO / "training" / "benchmarks")) if p not in sys.path]

from chipperf_runtime.perflog import finished_problems, parse_lines  # noqa: E402
from chipperf_runtime.training.driver import CaseError, ConfigError, Driver, Metric, load_case_config  # noqa: E402
from chipperf_runtime.training.driver.perfmode import RunMode, run_mode_from  # noqa: E402

BASE = """
from chipperf_runtime.training.driver.runmode_base import *
lr = 0.1
max_steps = None
global_batch_size = 8
"""


class FakeClock:
    def __init__(self) -> None:
        self.t = 100.0

    def __call__(self) -> float:
        return self.t


@pytest.fixture()
def case(tmp_path: Path) -> Path:
    (tmp_path / "case" / "config").mkdir(parents=True)
    (tmp_path / "case" / "config" / "_base.py").write_text(BASE)
    (tmp_path / "case" / "config" / "mutable_params.py").write_text(
        "from chipperf_runtime.training.driver.runmode_mutable import *\n"
        "mutable_params = run_mode_knobs + ['lr']\n")
    return tmp_path


def start(case: Path, clock: FakeClock, out: io.StringIO, *sets: str,
          world: str = "1") -> Driver:
    argv = ["--data_dir", str(case), "--output_dir", str(case / "out")]
    for item in sets:
        argv += ["--set", item]
    return Driver.start("m", case / "case", argv, environ={"RANK": "0", "WORLD_SIZE": world},
                        clock=clock, stream=out)


def test_knobs_come_from_the_shared_base_and_default_to_convergence(case: Path) -> None:
    cfg = load_case_config(case / "case" / "config", None)
    assert (cfg.run_mode, cfg.perf_warmup_steps, cfg.timed_steps) == ("convergence", 0, 0)
    assert run_mode_from(cfg) == RunMode("convergence", 0, 0)
    assert run_mode_from({}).total_steps is None          # a case without the knobs


@pytest.mark.parametrize(("config", "says"), [
    ({"run_mode": "performance", "timed_steps": 0}, "timed_steps = 0: nothing would be timed"),
    ({"run_mode": "performance", "perf_warmup_steps": 5, "timed_steps": 10, "max_steps": 12},
     "max_steps = 12 stops the run before perf_warmup_steps + timed_steps = 5 + 10"),
    ({"run_mode": "fast"}, "run_mode = 'fast': unknown run mode"),
    ({"run_mode": "performance", "timed_steps": -3}, "timed_steps = -3: must be a whole number"),
])
def test_bad_performance_input_is_one_clear_message(config: dict, says: str) -> None:
    with pytest.raises(ConfigError) as err:
        run_mode_from(config)
    assert says in str(err.value)
    assert len(str(err.value).splitlines()) == 1


def test_bad_performance_input_stops_the_driver_before_training(case: Path) -> None:
    out = io.StringIO()
    with pytest.raises(ConfigError, match="nothing would be timed"):
        start(case, FakeClock(), out, "run_mode=performance")
    names = [e.name for e in parse_lines(out.getvalue().splitlines())[0]]
    assert "TRAIN_START" not in names


def run_steps(d: Driver, clock: FakeClock, steps: int, per_step: float, batch: int,
              slow_first: float = 0.0) -> int:
    """Steps of ``per_step`` seconds of compute each (the first ``slow_first`` longer)."""
    samples = 0
    for step in range(1, steps + 1):
        with d.compute():
            clock.t += per_step + (slow_first if step == 1 else 0.0)
        samples += batch
        d.step_end(step, work=samples)
        if d.step_done(step, samples):
            return step
    return steps


def test_performance_run_times_only_the_steps_after_warmup(case: Path) -> None:
    clock, out = FakeClock(), io.StringIO()
    d = start(case, clock, out, "run_mode=performance", "perf_warmup_steps=3", "timed_steps=10",
              world="2")
    d.train_start()
    assert d.stop_after(None) == 13
    made = run_steps(d, clock, 100, per_step=0.5, batch=8, slow_first=4.0)  # a slow compile
    d.train_end()
    fin = d.finish(work_done=2 * 8 * made, work_unit="samples", metric=Metric("top1", None, 0.7),
                   flops_per_unit=2.0, dtype="fp32", peak_memory_bytes=None)
    assert made == 13
    assert finished_problems(fin) == []
    assert fin["train_time_s"] == 5.0 and fin["work_done"] == 160     # 10 steps x 8 x 2 ranks
    assert fin["throughput"]["raw"] == 32.0 and fin["throughput"]["pure_compute"] == 32.0
    assert fin["converged"] is False and fin["metric"]["value"] is None
    mode = fin["run_mode"]
    assert (mode["mode"], mode["warmup_steps"], mode["timed_steps"]) == ("performance", 3, 10)
    assert (mode["timed_first_step"], mode["timed_last_step"]) == (4, 13)
    assert mode["whole_run"]["train_time_s"] == 10.5                   # 13 x 0.5 + 4 s compile
    events = parse_lines(out.getvalue().splitlines())[0]
    assert events[-1].name == "FINISHED" and events[-1].value == fin


def test_no_warmup_times_from_train_start(case: Path) -> None:
    clock, out = FakeClock(), io.StringIO()
    d = start(case, clock, out, "run_mode=performance", "timed_steps=4")
    d.train_start()
    assert run_steps(d, clock, 50, per_step=1.0, batch=2) == 4
    d.train_end()
    fin = d.finish(work_done=8, work_unit="samples", metric=Metric("loss", 2.5, None, False),
                   flops_per_unit=1.0, dtype="fp32", peak_memory_bytes=None)
    assert (fin["train_time_s"], fin["work_done"], fin["metric"]["value"]) == (4.0, 8, 2.5)


def test_a_run_that_ends_before_its_timed_steps_says_so(case: Path) -> None:
    clock, out = FakeClock(), io.StringIO()
    d = start(case, clock, out, "run_mode=performance", "perf_warmup_steps=2", "timed_steps=50")
    d.train_start()
    run_steps(d, clock, 7, per_step=1.0, batch=2)        # the data ran out
    d.train_end()
    with pytest.raises(CaseError, match="stopped before its 50 timed steps"):
        d.finish(work_done=14, work_unit="samples", metric=Metric("top1", 0.1, 0.7),
                 flops_per_unit=1.0, dtype="fp32", peak_memory_bytes=None)


def test_convergence_run_is_unchanged_and_says_its_mode(case: Path) -> None:
    clock, out = FakeClock(), io.StringIO()
    d = start(case, clock, out)
    d.train_start()
    assert run_steps(d, clock, 20, per_step=0.5, batch=4) == 20   # step_done never stops it
    d.train_end()
    fin = d.finish(work_done=80, work_unit="samples", metric=Metric("top1", 0.8, 0.7),
                   flops_per_unit=1.0, dtype="fp32", peak_memory_bytes=None)
    assert fin["run_mode"] == {"mode": "convergence", "warmup_steps": 0, "timed_steps": 0}
    assert fin["train_time_s"] == 10.0 and fin["converged"] is True


def test_step_end_carries_what_a_cut_round_needs(case: Path) -> None:
    clock, out = FakeClock(), io.StringIO()
    d = start(case, clock, out, world="2")
    d.train_start()
    run_steps(d, clock, 20, per_step=0.5, batch=4)
    steps = [e.value for e in parse_lines(out.getvalue().splitlines())[0] if e.name == "STEP_END"]
    assert [(s["step"], s["work_so_far"], s["train_elapsed_s"]) for s in steps] == \
        [(10, 80, 5.0), (20, 160, 10.0)]


class FakeTrainer:
    """textlm.loop's framework side: batches of 4 samples, each step 0.5 s of compute."""

    def __init__(self, clock: FakeClock) -> None:
        self.clock, self.evaluated = clock, 0

    def batches(self, epoch: int) -> range:
        return range(6)                          # 6 steps an epoch

    def step(self, batch: int) -> tuple[float, bool]:
        self.clock.t += 0.5
        return 1.0, True

    def work(self, batch: int) -> int:
        return 4

    def lr(self) -> float:
        return 0.1

    def evaluate(self) -> float:
        self.evaluated += 1
        return 0.0


def test_text_loop_runs_warmup_plus_timed_steps_across_epochs_without_evaluating(
        case: Path) -> None:
    from chipperf_runtime.training.textlm.loop import Goal, Schedule, run

    clock, out = FakeClock(), io.StringIO()
    d = start(case, clock, out, "run_mode=performance", "perf_warmup_steps=5", "timed_steps=10")
    trainer = FakeTrainer(clock)
    progress = run(d, trainer, Schedule(Goal("acc", 0.9), 1000, 2, "tokens"))
    assert (progress.step, progress.epoch, trainer.evaluated) == (15, 3, 0)
    fin = d.finish(work_done=progress.work, work_unit="tokens", metric=Metric("acc", None, 0.9),
                   flops_per_unit=1.0, dtype="fp32", peak_memory_bytes=None)
    assert (fin["work_done"], fin["train_time_s"], fin["throughput"]["raw"]) == (40, 5.0, 8.0)
    events = parse_lines(out.getvalue().splitlines())[0]
    assert "EVALUATE" not in [e.name for e in events]
    steps = [e.value for e in events if e.name == "STEP_END"]
    assert steps and all(s["work_unit"] == "tokens" for s in steps)


def test_synthetic_input_asked_of_a_case_without_it_is_one_message() -> None:
    """gpt2 has no data_mode knob: --set names the unknown parameter."""
    with pytest.raises(ConfigError) as err:
        load_case_config(REPO / "training/benchmarks/gpt2/pytorch/config", None,
                         {"data_mode": "synthetic"})
    assert "--set data_mode=...: unknown parameter 'data_mode'" in str(err.value)
    vision = load_case_config(REPO / "training/benchmarks/vit/pytorch/config", None,
                              {"data_mode": "synthetic"})
    assert vision.data_mode == "synthetic"
