"""`chipperf check` picks its FlagPerf mode for a FlagPerf directory and reports no false
problems on a well-formed one; FlagPerf inference and LLM results become summary rows."""

from __future__ import annotations

from pathlib import Path

from flagperf_dirs import inference_run, llm_run, perflog, rank_log, training_run

from chipperf.results import check_main
from chipperf.results.read.check import check
from chipperf.results.read.check_flagperf import check_flagperf, is_flagperf_dir
from chipperf.results.render.console import console
from chipperf.results.report import summarize

LLM = Path(__file__).parent / "data" / "flagperf" / "logs" / "llama2_7b_deepspeed_rank0.out.log"
CASE = "resnet50:pytorch_1.8:A100:2:2:1"


def test_a_well_formed_training_dir_has_no_problem(tmp_path, capsys):
    run = training_run(tmp_path)
    assert is_flagperf_dir(run)
    report = check_flagperf(run)
    assert report.problems == []
    assert (report.cases, report.rounds, report.nodes) == (1, 1, 2)
    assert report.perflog_lines == 4 * 8 and report.monitor_lines > 100
    assert len(check(run).problems) > 100      # chipperf's contract would list false ones
    assert check_main(run) == 0
    out = capsys.readouterr().out
    assert "a FlagPerf result directory (no run.json)" in out
    assert "ok: " in out and "follows FlagPerf's result layout" in out


def test_a_rank_that_is_neither_local_nor_global_and_misnamed_logs(tmp_path):
    run = training_run(tmp_path)
    node1 = run / CASE / "round1" / "10.1.2.3_noderank1"
    (node1 / "rank3.out.log").write_text(perflog("INIT_START", 1, 5) + "\n")
    (node1 / "rank7.out.log").write_text("\n")
    problems = check_flagperf(run).problems
    assert problems == [
        f"{CASE}/round1/10.1.2.3_noderank1/rank3.out.log:1: INIT_START: metadata.rank 5 is "
        "neither this process's local rank 1 nor its global rank 3",
        f"{CASE}/round1/10.1.2.3_noderank1/rank7.out.log: global rank 7 is not one of node 1's "
        "ranks 2..3"]


def test_truncated_rank_zero_log_is_one_problem_naming_file_and_line(tmp_path):
    run = training_run(tmp_path)
    log = run / CASE / "round1" / "10.1.2.2_noderank0" / "rank0.out.log"
    log.write_text(rank_log(0, finished=False))
    assert check_flagperf(run).problems == [
        f"{CASE}/round1/10.1.2.2_noderank0/rank0.out.log:8: the log ends without a FINISHED "
        "event: the case did not finish (or the log is truncated)"]
    (first,) = summarize(run).cases[0].rounds            # chipperf report says it the same way
    assert first.status == "failed"
    assert first.reasons["finished"] == ("10.1.2.2_noderank0/rank0.out.log has no FINISHED "
                                         "event (it ends at line 8: the case did not finish, "
                                         "or the log is truncated)")


def test_missing_node_round_and_bad_monitor_lines(tmp_path):
    run = training_run(tmp_path, case="resnet50:pytorch_1.8:A100:3:2:2")
    case = "resnet50:pytorch_1.8:A100:3:2:2"
    with open(run / case / "round1" / "10.1.2.2_noderank0" / "cpu_monitor.log", "a") as out:
        out.write("2024-01-01-10:00:00\n")
    (run / case / "round1" / "10.1.2.3_noderank1" / "mem_monitor.log").unlink()
    problems = check_flagperf(run).problems
    assert f"{case}/round2/: missing (the case key says 2 rounds)" in problems
    assert f"{case}/round1/: no <host>_noderank2 dir (the case key says 3 nodes)" in problems
    assert f"{case}/round1/10.1.2.3_noderank1/mem_monitor.log: missing (FlagPerf's sys_monitor " \
        "writes it)" in problems
    assert any(p.startswith(f"{case}/round1/10.1.2.2_noderank0/cpu_monitor.log:14: not "
                            "'<timestamp> <value>'") for p in problems)
    assert len(problems) == 4


def test_inference_finish_info_is_checked_and_becomes_a_summary_row(tmp_path):
    run = inference_run(tmp_path)
    assert check_flagperf(run).problems == []
    summary = summarize(run)
    assert summary.suite == "inference"
    (case,) = summary.cases
    (first,) = case.rounds
    assert first.status == "succeeded", first.reason
    assert (first.throughput.raw, first.throughput.pure_compute) == (1100.0, 2100.0)
    assert (first.e2e_time_s, first.precision, first.engine) == (512.3, "fp16", "tensorrt")
    assert (first.metric.name, first.metric.value) == ("infer_average_acc", 0.74)
    assert case.vendor == "nvidia" and case.fingerprint.global_batch == 256
    assert case.counted == (1,) and case.aggregate["throughput_raw"].mean == 1100.0
    text = console(summary)
    assert "(no cases)" not in text and "resnet50:pytorch_1.13" in text and "1,100" in text


def test_inference_without_finish_info(tmp_path):
    run = inference_run(tmp_path, finish=False)
    assert check_flagperf(run).problems == [
        "resnet50:pytorch_1.13/127.0.0.1_noderank0/container.out.log:2: no 'Finish Info' line: "
        "the case did not finish (or the log is truncated)"]
    (first,) = summarize(run).cases[0].rounds
    assert first.status == "failed"
    assert any("container.out.log:2: no 'Finish Info' line" in p for p in first.problems)


def test_deepspeed_llm_dir_reads_its_rank0_log_txt(tmp_path):
    run = llm_run(tmp_path, LLM)
    assert check_flagperf(run).problems == []
    (case,) = summarize(run).cases
    (first,) = case.rounds
    assert first.status == "succeeded" and first.throughput.raw == 24576.0
    assert case.counted == (1,) and case.aggregate["throughput_raw"].mean == 24576.0
    cut = LLM.read_text().split("System tokens per second")[0]
    (run / "llama2_7b:deepspeed:A100:1:8:1" / "round1" / "10.1.2.2_noderank0" /
     "rank0.log.txt").write_text(cut)
    (problem,) = check_flagperf(run).problems
    assert problem.startswith("llama2_7b:deepspeed:A100:1:8:1/round1/10.1.2.2_noderank0/"
                              "rank0.log.txt:4: the log ends without FlagPerf's System tokens")
    (cut_round,) = summarize(run).cases[0].rounds
    assert cut_round.status == "failed"
    assert cut_round.reasons["finished"].startswith(
        "10.1.2.2_noderank0/rank0.log.txt:4: the log ends without FlagPerf's System tokens")
