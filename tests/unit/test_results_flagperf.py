"""Old FlagPerf result directories are summarised and compare with chipperf runs."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from synthetic_results import SynthCase, SynthRound, write_run

from chipperf.results.read.flagperf import case_identity, parse_timestamp
from chipperf.results.render.compare import compare
from chipperf.results.report import summarize, write_reports

START = 1_677_808_800  # epoch seconds of the case start; rendered in local time below
TRAIN_S = (60, 660)    # TRAIN_START .. TRAIN_END, seconds after START


def stamp(seconds: float, sep: str = "-") -> str:
    return time.strftime(f"%Y-%m-%d{sep}%H:%M:%S", time.localtime(START + seconds))


def perflog(event: str, seconds: float, value: dict | None = None) -> str:
    record = {"event": event, "value": value} if value is not None else {"event": event}
    record["metadata"] = {"file": "run_pretraining.py", "lineno": 1,
                          "time_ms": int((START + seconds) * 1000), "rank": 0}
    return "[PerfLog] " + json.dumps(record)


def flagperf_node(node: Path, throughput: float, sep: str = "-") -> None:
    node.mkdir(parents=True)
    finished = {"e2e_time": 700.0, "training_sequences_per_second": throughput,
                "converged": True, "final_mlm_accuracy": 0.721, "raw_train_time": 600.0,
                "init_time": 30.0, "num_trained_samples": int(throughput * 600),
                "throughput(ips)_raw": throughput}
    (node / "rank0.out.log").write_text("\n".join([
        perflog("SUBMIT_INFO", 0, {"vendor": "nvidia", "model": "bert", "config_path": "x",
                                   "config": {"target_mlm_accuracy": 0.72, "lr": 1e-4,
                                              "train_batch_size": 8, "max_seq_length": 512,
                                              "data_dir": "/raid/dataset/bert_data/",
                                              "amp": True, "fp16": False}}),
        perflog("INIT_START", 1), perflog("TRAIN_START", TRAIN_S[0]),
        "some framework output",
        perflog("TRAIN_END", TRAIN_S[1]), perflog("FINISHED", 700, finished)]) + "\n")
    for rank in range(1, 8):
        (node / f"rank{rank}.out.log").write_text("training\n")
    (node / "start_pytorch_task.log").write_text("started\n")
    samples = range(0, 721, 5)
    (node / "cpu_monitor.log").write_text("".join(f"{stamp(s, sep)}\t0.125\n" for s in samples))
    (node / "mem_monitor.log").write_text("".join(f"{stamp(s, sep)}\t0.5\n" for s in samples))
    (node / "pwr_monitor.log").write_text("".join(f"{stamp(s, sep)}\t350\n"
                                                  for s in range(0, 721, 120)))
    gpus = "".join(f"{stamp(s, sep)}\n" + "".join(f"3{i}C 300W {40000 + i}MiB 81920MiB 95%\n"
                                                  for i in range(8)) + "\n" for s in samples)
    (node / "nvidia_monitor.log").write_text(gpus)


@pytest.fixture
def flagperf_run(tmp_path) -> Path:
    run = tmp_path / "run20230303100000"
    flagperf_node(run / "bert:pytorch_1.8:A100:1:8:2" / "round1" / "10.1.2.2_noderank0", 800.0)
    flagperf_node(run / "bert:pytorch_1.8:A100:1:8:2" / "round2" / "10.1.2.2_noderank0", 820.0,
                  sep=" ")
    return run


def test_flagperf_run_is_summarised(flagperf_run):
    summary = summarize(flagperf_run)
    assert summary.source == "flagperf" and summary.vendor == "nvidia"
    case = summary.cases[0]
    assert (case.model, case.framework, case.chip, case.nnodes, case.nproc, case.repeat) == \
        ("bert", "pytorch_1.8", "A100", 1, 8, 2)
    first = case.rounds[0]
    assert first.status == "succeeded"
    assert first.throughput.raw == 800.0 and first.throughput.unit == "samples/s"
    assert first.train_time_s == 600.0 and first.work_done == 480000
    assert (first.metric.name, first.metric.value, first.metric.target) == \
        ("mlm_accuracy", 0.721, 0.72)
    node = first.nodes[0]
    assert node.avg_cpu_util_pct == pytest.approx(12.5)          # shares read as percent
    assert node.peak_host_memory_pct == pytest.approx(50.0)
    assert node.avg_power_w == pytest.approx(350.0)
    assert node.energy_j == pytest.approx(350.0 * 600)            # 120 s samples, no gap
    assert node.chips == 8
    assert node.accel_avg_power_w_per_chip == pytest.approx(300.0)
    assert node.accel_energy_j == pytest.approx(8 * 300.0 * 600)
    assert node.peak_accel_memory_bytes == 40007 * 2**20
    assert node.avg_accel_util_pct == pytest.approx(95.0)
    assert first.mfu is None and first.reasons["mfu"] == "FINISHED has no dtype"
    assert case.counted == (1, 2)
    assert case.aggregate["throughput_raw"].mean == pytest.approx(810.0)
    assert summary.problems == ("run.json missing (read as a FlagPerf result directory)",)
    assert all(not r.problems for r in case.rounds)


def test_flagperf_and_chipperf_cases_of_one_name_are_separate_rows(flagperf_run, tmp_path):
    """FlagPerf's bert and chipperf's bert are different implementations (and here different
    batches): two rows, no ratio between them, and a note naming what differs."""
    new = write_run(tmp_path / "new", [SynthCase(model="bert", nnodes=1, nproc=8, seconds=5,
                                                 rounds=(SynthRound(1600.0), SynthRound(1640.0)),
                                                 config=(("global_batch_size", 256),))])
    comparison = compare([summarize(flagperf_run), summarize(new)], baseline=0)
    rows = [r for r in comparison.rows if r.figure == "throughput_raw"]
    assert [r.match for r in rows] == ["bert:pytorch 1x8 [workload A]",
                                       "bert:pytorch 1x8 [workload B]"]
    assert rows[0].cells[1].stat is None and rows[1].cells[0].stat is None
    assert all(c.ratio is None for r in rows for c in r.cells)
    (note,) = comparison.notes
    assert note.startswith("bert:pytorch 1x8: not one workload, so not compared in one row: "
                           "[workload A] run20230303100000 (flagperf); [workload B] ")
    assert "case flagperf:bert/pytorch vs chipperf:bert/pytorch" in note
    assert "global_batch 64 vs 256" in note      # FlagPerf: 8 per chip x 8 chips
    assert write_reports(flagperf_run)


def test_flagperf_runs_of_one_workload_meet_in_one_row(flagperf_run, tmp_path):
    other = tmp_path / "run20230304100000"
    flagperf_node(other / "bert:pytorch_1.8:A100:1:8:1" / "round1" / "10.1.2.3_noderank0", 900.0)
    comparison = compare([summarize(flagperf_run), summarize(other)], baseline=0)
    row = next(r for r in comparison.rows if r.figure == "throughput_raw")
    assert row.match == "bert:pytorch 1x8" and comparison.notes == ()
    assert row.cells[1].ratio == pytest.approx(900.0 / 810.0)
    fp = summarize(other).cases[0].fingerprint
    assert (fp.case, fp.framework, fp.global_batch, fp.seq_len, fp.dataset, fp.precision) == (
        "flagperf:bert/pytorch", "pytorch", 64, 512, "bert_data", "amp")


def test_bad_flagperf_monitor_lines_are_problems(flagperf_run):
    node = flagperf_run / "bert:pytorch_1.8:A100:1:8:2" / "round1" / "10.1.2.2_noderank0"
    with open(node / "cpu_monitor.log", "a") as out:
        out.write("error\n2023-03-03-10:00:01\tn/a\n")
    with open(node / "nvidia_monitor.log", "a") as out:
        out.write("Unable to determine the device handle\n")
    problems = summarize(flagperf_run).cases[0].rounds[0].problems
    assert any("cpu_monitor.log:146: not '<timestamp> <value>'" in p for p in problems)
    assert any("cpu_monitor.log:147" in p for p in problems)
    assert any("nvidia_monitor.log:" in p and "not a timestamp or a device line" in p
               for p in problems)


def test_case_dir_names():
    assert case_identity("bert:pytorch_1.8:A100:1:8:1")["nproc"] == 8
    assert case_identity("resnet50-pytorch_2.13-xeon-1x2") == {
        "model": "resnet50", "framework": "pytorch_2.13", "chip": "xeon", "nnodes": 1,
        "nproc": 2}
    assert case_identity("CPM_TORCH_DEMO_A100_1X8") == {
        "model": "cpm", "framework": "pytorch", "chip": "A100", "nnodes": 1, "nproc": 8}
    assert case_identity("whatever") == {}


def test_timestamps():
    assert parse_timestamp(stamp(0)) == START * 1000
    assert parse_timestamp(stamp(0, " ") + ".250") == START * 1000 + 250
    assert parse_timestamp("nonsense") is None


def test_a_flagperf_llm_run_is_read_from_its_summary_lines(tmp_path):
    """FlagPerf's deepspeed/megatron/flagscale cases print tokens/s and MFU lines, no PerfLog
    FINISHED: the round succeeds with those figures instead of failing."""
    sample = Path(__file__).parent / "data" / "flagperf" / "logs" / "llama2_7b_deepspeed_rank0.out.log"
    node = tmp_path / "run20240101100000" / "llama2_7b:deepspeed:A100:1:8:1" / "round1" / \
        "10.1.2.2_noderank0"
    node.mkdir(parents=True)
    (node / "rank0.out.log").write_text(sample.read_text())
    summary = summarize(tmp_path / "run20240101100000")
    (case,) = summary.cases
    (first,) = case.rounds
    assert first.status == "succeeded", first.reason
    assert first.throughput.raw == 24576.0 and first.throughput.unit == "tokens/s"
    assert first.mfu == pytest.approx(0.41353846153846156)
    assert "as the FlagPerf case printed it (peak 312.0 TFLOPS" in first.reasons["mfu"]
    assert (first.metric.name, first.metric.value) == ("final_loss", 6.5021)
    truncated = sample.read_text().split("System tokens per second")[0]
    (node / "rank0.out.log").write_text(truncated)
    (again,) = summarize(tmp_path / "run20240101100000").cases[0].rounds
    assert again.status == "failed" and again.mfu is None
