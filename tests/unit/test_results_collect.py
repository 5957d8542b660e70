"""A run directory read into the schema: figures, MFU, aggregation over rounds."""

from __future__ import annotations

import json

import pytest
from synthetic_results import SynthCase, SynthRound, write_run

from chipperf.results.compute.aggregate import stat
from chipperf.results.compute.schema import RunSummary
from chipperf.results.report import summarize

A100_BF16 = 312e12


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    return write_run(tmp_path_factory.mktemp("runs"), [SynthCase(seconds=20)])


def test_round_figures_from_perflog_and_monitors(run):
    summary = summarize(run)
    assert summary.source == "chipperf" and summary.vendor == "nvidia"
    assert summary.problems == ()
    case = summary.cases[0]
    assert (case.model, case.family, case.chip, case.nnodes, case.nproc) == \
        ("resnet50", "pytorch", "A100", 2, 2)
    first = case.rounds[0]
    assert first.status == "succeeded" and first.converged is True
    assert first.throughput.raw == pytest.approx(1000.0)
    assert first.throughput.unit == "samples/s"
    assert first.train_end_ms - first.train_start_ms == 20_000
    assert first.mfu == pytest.approx(1000 * 12.3e9 / (A100_BF16 * 4))
    assert (first.mfu_dtype, first.chips, first.peak_flops_per_chip) == ("bf16", 4, A100_BF16)
    # 2 nodes at ~2500 W and 4 chips at ~300 W over 20 s (a +-20 W / +-10 W wave on top)
    assert first.energy_j == pytest.approx(2 * 2500 * 20, rel=0.01)
    assert first.accel_energy_j == pytest.approx(4 * 300 * 20, rel=0.02)
    assert first.work_per_joule == pytest.approx(first.work_done / first.energy_j)
    assert first.avg_power_w_per_node == pytest.approx(2500, rel=0.01)
    assert first.avg_power_w_per_chip == pytest.approx(300, rel=0.04)
    assert first.peak_accel_memory_bytes == 60 * 2**30 + 1
    assert first.avg_accel_util_pct == pytest.approx(97.0)
    assert [n.name for n in first.nodes] == ["10.0.0.1_noderank0", "10.0.0.2_noderank1"]
    assert first.nodes[0].coverage == {"pwr": 1.0, "accel": 1.0}


def test_absent_figures_are_none_with_a_reason_never_zero(run):
    first = summarize(run).cases[0].rounds[0]
    assert first.cpu_energy_j is None
    assert first.reasons["cpu_energy_j"] == \
        "10.0.0.1_noderank0: pwr_monitor.log has no RAPL power samples"
    as_json = first.to_dict()
    assert as_json["cpu_energy_j"] is None and "cpu_energy_j" in as_json["reasons"]


def test_aggregate_over_counted_rounds(run):
    case = summarize(run).cases[0]
    assert case.counted == (1, 2, 3) and case.excluded == ()
    throughput = case.aggregate["throughput_raw"]
    assert (throughput.n, throughput.mean, throughput.median) == (3, 1000.0, 1000.0)
    assert (throughput.min, throughput.max) == (990.0, 1010.0)
    assert throughput.cv == pytest.approx(10.0 / 1000.0)
    assert throughput.olympic_mean is None
    assert throughput.reasons["olympic_mean"] == "needs >= 5 rounds (has 3)"
    assert case.throughput_unit == "samples/s" and case.metric_target == 0.75


def test_failed_and_unconverged_rounds_are_listed_not_averaged(tmp_path):
    rounds = (SynthRound(1000.0), SynthRound(900.0), SynthRound(1100.0),
              SynthRound(5000.0, status="failed", finished=False),
              SynthRound(4000.0, converged=False), SynthRound(1010.0), SynthRound(990.0))
    case = summarize(write_run(tmp_path, [SynthCase(seconds=5, rounds=rounds)])).cases[0]
    assert case.counted == (1, 2, 3, 6, 7)
    assert [(e.round, e.why) for e in case.excluded] == [
        (4, "status failed: rank 0 exited with 1"),
        (5, "did not converge: top1 0.5 vs target 0.75")]
    throughput = case.aggregate["throughput_raw"]
    assert throughput.n == 5 and throughput.mean == pytest.approx(1000.0)
    assert throughput.olympic_mean == pytest.approx(1000.0)   # 900 and 1100 dropped
    assert case.status == "failed"


def test_stat_edge_cases():
    one = stat([5.0])
    assert (one.mean, one.median, one.cv, one.stdev) == (5.0, 5.0, None, None)
    assert one.reasons["cv"] == "needs >= 2 rounds"
    none = stat([])
    assert none.n == 0 and none.mean is None and none.reasons
    five = stat([1.0, 2.0, 3.0, 4.0, 100.0])
    assert five.olympic_mean == 3.0 and five.median == 3.0


def test_mfu_absent_for_a_chip_without_peak_flops(tmp_path):
    cpu = SynthCase(vendor="cpu", chip="xeon", seconds=5, rounds=(SynthRound(),))
    first = summarize(write_run(tmp_path, [cpu])).cases[0].rounds[0]
    assert first.mfu is None
    assert first.reasons["mfu"] == "cpu vendor spec sheet has no peak FLOP/s for chip xeon"
    assert first.avg_power_w_per_chip is None
    assert "vendor cpu has no accelerator telemetry" in first.reasons["avg_power_w_per_chip"]
    assert first.energy_j is not None            # the node's wall power is still there


def test_mfu_states_a_missing_dtype_peak(tmp_path):
    odd = SynthCase(dtype="int4", seconds=5, rounds=(SynthRound(),))
    first = summarize(write_run(tmp_path, [odd])).cases[0].rounds[0]
    assert first.mfu is None and first.mfu_dtype == "int4"
    assert first.reasons["mfu"].startswith("nvidia spec sheet for A100 has no peak FLOP/s in int4")


def test_summary_round_trips_through_json(run):
    summary = summarize(run)
    again = RunSummary.from_dict(json.loads(json.dumps(summary.to_dict())))
    assert again == summary


def test_from_dict_is_tolerant_of_unknown_and_missing_keys():
    loaded = RunSummary.from_dict({"run_id": "r", "future_key": 1,
                                   "cases": [{"dir_name": "c", "rounds": [{"number": 1}]}]})
    assert loaded.cases[0].rounds[0].number == 1 and loaded.cases[0].rounds[0].mfu is None


def test_several_cases_in_one_run(tmp_path):
    cases = [SynthCase(seconds=5, rounds=(SynthRound(),)),
             SynthCase(model="bert", seconds=5, nnodes=1, rounds=(SynthRound(700.0),))]
    summary = summarize(write_run(tmp_path, cases))
    assert [c.model for c in summary.cases] == ["resnet50", "bert"]
    assert summary.cases[1].aggregate["throughput_raw"].mean == pytest.approx(700.0)
    assert summary.cases[1].rounds[0].world_size == 2
