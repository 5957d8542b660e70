"""SWEEPS: a case's grid of batch size x sequence length x precision values, expanded at plan
time into one round per point (times the case key's repeat), refused when a value is one the
case rejects or the grid is longer than SWEEP_DEADLINE; per round the point is recorded, an
out-of-memory end is named, and the largest batch that fit is the edge (sweep.csv, report.html)."""

from __future__ import annotations

import csv
import io
import json
import math
from pathlib import Path

import pytest

from chipperf.commands.render_plan import render_plan
from chipperf.config.load import parse_test
from chipperf.config.model import CaseEntry, CaseKey, ClusterConfig, TestConfig
from chipperf.config.sweep import BATCH, PRECISION, SEQUENCE, as_sweep, axis_role, estimate
from chipperf.plan import check, make_plan
from chipperf.results.compute.gridsweep import OOM, Axis, SweepRound, edges, oom_line
from chipperf.results.report import write_reports
from chipperf.suites.catalogue import Catalogue
from tests.synthetic_results import SynthCase, SynthRound, write_run

REPO = Path(__file__).resolve().parents[2]
CATALOGUE = Catalogue.scan(REPO / "training")
KEY = "gpt2:pytorch_2.13:xeon:1:1:1"
GRID = {"global_batch_size": [4, 8, 16], "seq_len": [16, 32, 64]}


def configs(sweep: dict, key: str = KEY, **settings: object) -> tuple[ClusterConfig, TestConfig]:
    return (ClusterConfig(hosts=("127.0.0.1",), master_port=29600, work_root="/w"),
            TestConfig(vendor="cpu", cases=(CaseEntry(CaseKey.parse(key), "/data"),),
                       sweeps={key: as_sweep(sweep)}, **settings))  # type: ignore[arg-type]


# ---------------------------------------------------------------- the grid


def test_axis_roles_come_from_the_parameter_names() -> None:
    assert [axis_role(n) for n in ("global_batch_size", "micro_batch_size", "seq_len",
                                   "max_seq_length", "dtype", "precision", "amp")] == \
        [BATCH, BATCH, SEQUENCE, SEQUENCE, PRECISION, PRECISION, PRECISION]
    assert axis_role("learning_rate") is None


def test_the_grid_is_every_combination_last_axis_fastest() -> None:
    sweep = as_sweep({**GRID, "dtype": ["fp32", "bf16"]})
    points = sweep.points()
    assert len(points) == 18 and sweep.shape.startswith("3 x 3 x 2 = 18 points")
    assert points[0] == {"global_batch_size": 4, "seq_len": 16, "dtype": "fp32"}
    assert points[1] == {"global_batch_size": 4, "seq_len": 16, "dtype": "bf16"}
    assert points[-1] == {"global_batch_size": 16, "seq_len": 64, "dtype": "bf16"}


@pytest.mark.parametrize("sweep, phrase", [
    ({"learning_rate": [1e-3]}, "'learning_rate' is not a batch size, sequence length or precision"),
    ({"global_batch_size": [4, 0]}, "global_batch_size: 0 is not a whole number >= 1"),
    ({"seq_len": [16, 16]}, "lists a value twice"),
    ({"seq_len": []}, "is not a non-empty list"),
    ({"global_batch_size": [4], "micro_batch_size": [1]}, "more than one batch parameter"),
    ({"global_batch_size": list(range(1, 40)), "seq_len": list(range(1, 40))}, "1521 points"),
])
def test_a_sweep_that_is_not_a_grid_is_refused(sweep: dict, phrase: str) -> None:
    with pytest.raises(ValueError, match=phrase):
        as_sweep(sweep)


def test_each_point_is_a_round_repeat_times_with_its_values_as_set_arguments() -> None:
    cluster, test = configs(GRID, key=KEY[:-1] + "2")
    assert check(cluster, test, CATALOGUE) == []
    plan = make_plan(cluster, test, CATALOGUE, "run1", Path("result"))
    rounds = plan.cases[0].rounds
    assert [r.number for r in rounds] == list(range(1, 19))
    assert rounds[0].point == rounds[1].point == {"global_batch_size": 4, "seq_len": 16}
    assert rounds[17].point == {"global_batch_size": 16, "seq_len": 64}
    assert list(rounds[2].nodes[0].command[-4:]) == ["--set", "global_batch_size=4",
                                                     "--set", "seq_len=32"]


def test_the_plan_prints_the_grid_its_estimate_and_each_point() -> None:
    cluster, test = configs(GRID, round_timeout_s=300.0, sweep_deadline_s=3600.0)
    text = render_plan(make_plan(cluster, test, CATALOGUE, "run1", Path("r")), cluster, test,
                       CATALOGUE)
    assert "  sweep     3 x 3 = 9 points (global_batch_size x seq_len) x repeat 1" in text
    assert "  estimate  9 rounds x 300 s (ROUND_TIMEOUT, the most a round may take) = 2700 s " \
           "(0.8 h), SWEEP_DEADLINE 3600 s" in text
    assert "  point 9   round 9: global_batch_size=16 seq_len=64" in text


# ---------------------------------------------------------------- bad input at plan time


def test_a_grid_the_deadline_cannot_hold_is_refused_with_its_estimate() -> None:
    cluster, test = configs(GRID, round_timeout_s=600.0, sweep_deadline_s=3600.0)
    problems = check(cluster, test, CATALOGUE)
    assert len(problems) == 1, problems
    assert "3 x 3 = 9 points (global_batch_size x seq_len) x repeat 1: estimated 9 rounds x " \
           "600 s (ROUND_TIMEOUT, the most a round may take) = 5400 s (1.5 h), over " \
           "SWEEP_DEADLINE 3600 s: drop values" in problems[0]


def test_a_measured_round_length_makes_the_estimate() -> None:
    cluster, test = configs(GRID, round_timeout_s=600.0, sweep_deadline_s=3600.0,
                            sweep_round_s=60.0)
    assert check(cluster, test, CATALOGUE) == []
    guess = estimate(as_sweep(GRID), 2, 600.0, 60.0)
    assert (guess.rounds, guess.total_s, guess.basis) == (18, 1080.0, "SWEEP_ROUND_S, measured")


def test_a_value_the_case_rejects_is_one_message_at_plan_time() -> None:
    cluster, test = configs({"seq_len": [16, 32], "dtype": ["fp32", 16]})
    problems = check(cluster, test, CATALOGUE)
    assert len(problems) == 1, problems
    assert "SWEEPS dtype = 16 is a number, but its default 'bf16'" in problems[0]
    cluster, test = configs({"micro_batch_size": [1, 2]})
    problems = check(cluster, test, CATALOGUE)
    assert len(problems) == 1 and "SWEEPS sets 'micro_batch_size', which this case does not " \
        "have; allowed: " in problems[0], problems


def test_the_test_config_reads_sweeps_and_names_a_key_cases_lacks(tmp_path: Path) -> None:
    path = tmp_path / "test_conf.py"
    path.write_text(f"VENDOR = 'cpu'\nCASES = {{'{KEY}': '/d'}}\nSWEEPS = {{'{KEY}': {GRID!r}}}\n"
                    "SWEEP_DEADLINE = 7200\nSWEEP_ROUND_S = 30\n")
    test, problems = parse_test(path)
    assert problems == [] and len(test.sweeps[KEY].points()) == 9
    assert (test.sweep_deadline_s, test.sweep_round_s) == (7200.0, 30.0)
    path.write_text(f"VENDOR = 'cpu'\nCASES = {{'{KEY}': '/d'}}\n"
                    "SWEEPS = {'bert:pytorch:xeon:1:1:1': {'seq_len': [8]}}\n")
    _, problems = parse_test(path)
    assert problems == [f"{path}: SWEEPS: 'bert:pytorch:xeon:1:1:1' is not a case key of CASES: "
                        "key each sweep by a case key CASES lists"]


# ---------------------------------------------------------------- out of memory and the edge


@pytest.mark.parametrize("line", [
    "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB",
    "RuntimeError: [enforce fail at alloc_cpu.cpp:117] data. DefaultCPUAllocator: can't "
    "allocate memory: you tried to allocate 1073741824 bytes. Error code 12",
    "MemoryError",
    "terminate called after throwing an instance of 'std::bad_alloc'",
])
def test_a_rank_that_ran_out_of_memory_is_recognised(line: str) -> None:
    assert oom_line(["step 1 loss 3.2", line, "Traceback"]) == line
    assert oom_line(["step 1 loss 3.2", "rank 0 exited with 1"]) is None


def row(number: int, batch: int, seq: int, status: str) -> SweepRound:
    return SweepRound(number, {"global_batch_size": batch, "seq_len": seq}, status)


def test_the_edge_is_the_largest_batch_that_fit_per_other_point() -> None:
    axes = (Axis("global_batch_size", BATCH, (4, 8, 16)), Axis("seq_len", SEQUENCE, (16, 64)))
    rows = [row(1, 4, 16, "succeeded"), row(2, 4, 64, "succeeded"), row(3, 8, 16, "succeeded"),
            row(4, 8, 64, OOM), row(5, 16, 16, "succeeded"), row(6, 16, 64, OOM)]
    found = {e.others["seq_len"]: (e.largest_fit, e.smallest_oom) for e in edges(rows, axes)}
    assert found == {16: (16, None), 64: (4, 8)}
    assert edges(rows, (Axis("seq_len", SEQUENCE, (16, 64)),)) == ()


# ---------------------------------------------------------------- recorded, reported


def sweep_run(tmp_path: Path) -> Path:
    """A synthetic cpu run of a 3 x 3 grid whose largest point ran out of memory (its
    container OOMKilled, its rank's log saying so), as run.json records a sweep."""
    spec = [SynthRound(throughput=100.0 * b / (1 + s / 64)) for b in (4, 8, 16) for s in (16, 32, 64)]
    spec[-1] = SynthRound(status="failed", finished=False)
    case = SynthCase(model="gpt2", vendor="cpu", chip="xeon", nnodes=1, nproc=1, seconds=4,
                     rounds=tuple(spec))
    run_dir = write_run(tmp_path, (case,))
    run = json.loads((run_dir / "run.json").read_text())
    run["test"]["sweeps"] = {case.key: {"axes": [
        {"param": "global_batch_size", "role": BATCH, "values": [4, 8, 16]},
        {"param": "seq_len", "role": SEQUENCE, "values": [16, 32, 64]}]}}
    for entry, point in zip(run["cases"][case.dir_name]["rounds"], as_sweep(GRID).points()):
        entry["point"] = point
    last = run["cases"][case.dir_name]["rounds"][-1]
    last["containers"] = {"10.0.0.1_noderank0": {"exit_code": 1, "oom_killed": True}}
    (run_dir / "run.json").write_text(json.dumps(run))
    return run_dir


def test_the_report_writes_sweep_csv_and_draws_the_charts(tmp_path: Path) -> None:
    run_dir = sweep_run(tmp_path)
    write_reports(run_dir)
    rows = list(csv.DictReader(io.StringIO((run_dir / "sweep.csv").read_text())))
    assert [r["status"] for r in rows] == ["succeeded"] * 8 + [OOM]
    assert rows[0]["batch_size"] == "4" and rows[0]["seq_length"] == "16"
    assert rows[0]["point"] == "global_batch_size=4 seq_len=16"
    assert "OOMKilled" in rows[-1]["reason"] and rows[-1]["throughput"] == ""
    page = (run_dir / "report.html").read_text()
    assert "Throughput vs global_batch_size (samples/s), a line per seq_len" in page
    assert "Peak memory vs seq_len, a line per global_batch_size" in page
    assert "<p>Peak memory: accelerator (framework&#x27;s peak).</p>" in page
    assert "seq_len=64: global_batch_size 8 fits, 16 ran out of memory" in page
    # the workload table names the swept axes' values, not one point's (round 1's)
    assert "swept (global_batch_size): 4, 8, 16; see the Sweep part" in page
    assert "swept (seq_len): 16, 32, 64; see the Sweep part" in page
    assert "seq_len=16: global_batch_size 16 fits, none ran out of memory" in page


def test_an_inference_case_sweeps_its_configuration_keys_as_yaml_sets(tmp_path: Path) -> None:
    """host.yaml names a case model:framework; the points reach the case as --set NAME=<JSON>,
    and a key its configuration lacks is one message."""
    from chipperf.config.inference import load_inference

    root = tmp_path / "inference"
    for rel, text in {"benchmarks/bert_large/pytorch/run_inference.py": "",
                      "configs/bert_large/configuration.yaml": "batch_size: 1\nseq_len: 128\n"
                                                              "precision: fp32\n",
                      "configs/bert_large/vendor_config/cpu_configuration.yaml": "{}\n",
                      "cpu/docker_image/pytorch_2.13/Dockerfile": "FROM x\n"}.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    host = tmp_path / "host.yaml"
    common = ("VENDOR: cpu\nCHIP: xeon\nHOSTS: ['10.0.0.1']\n"
              "CASES: {'bert_large:pytorch_2.13': /data/text}\n")
    host.write_text(common + "SWEEPS: {'bert_large:pytorch_2.13': {batch_size: [1, 8], "
                    "precision: [fp32, bf16]}}\n")
    cluster, test, problems = load_inference(host, root)
    catalogue = Catalogue.scan(root, suite="inference")
    assert problems == [] and check(cluster, test, catalogue) == []
    rounds = make_plan(cluster, test, catalogue, "run1", Path("result")).cases[0].rounds
    assert len(rounds) == 4
    assert list(rounds[3].nodes[0].command[-4:]) == ["--set", "batch_size=8",
                                                     "--set", 'precision="bf16"']
    host.write_text(common + "SWEEPS: {'bert_large:pytorch_2.13': {max_seq_len: [64, 128]}}\n")
    cluster, test, _ = load_inference(host, root)
    problems = check(cluster, test, catalogue)
    assert len(problems) == 1 and "SWEEPS max_seq_len: " in problems[0], problems
    print(problems[0])


def test_a_memory_cap_for_the_cpu_vendor_is_a_container_option() -> None:
    """ACCE_CONTAINER_OPT = "--memory 2g --memory-swap 2g": the docker SDK's mem_limit, and
    the `docker run` words `chipperf plan` prints."""
    from chipperf.containers.options import parse_cli_options
    from chipperf.containers.spec import option_words

    kwargs, problems = parse_cli_options("--memory 2g --memory-swap=2g")
    assert problems == [] and kwargs == {"mem_limit": "2g", "memswap_limit": "2g"}
    assert option_words(kwargs) == ["--memory", "2g", "--memory-swap", "2g"]
    assert parse_cli_options("-m lots")[1] == ["-m=lots: write a size such as 32G or 512m"]


def test_a_round_whose_container_was_oom_killed_is_oom_without_a_log_line(tmp_path: Path) -> None:
    from chipperf.results.read.sweepread import round_oom

    entry = {"containers": {"h1_noderank0": {"exit_code": 137, "oom_killed": True},
                            "h2_noderank1": {"exit_code": 1, "oom_killed": False}}}
    assert round_oom(tmp_path, entry) == ("h1_noderank0: the container's memory limit was "
                                          "reached and the kernel killed a process in it "
                                          "(OOMKilled)")
    (tmp_path / "h1_noderank0").mkdir()
    (tmp_path / "h1_noderank0" / "rank0.out.log").write_text("step 3\nMemoryError\n")
    assert round_oom(tmp_path, {"containers": {}}) == "h1_noderank0/rank0.out.log: MemoryError"


def test_a_slurm_allocation_holds_every_round_of_the_grid() -> None:
    from chipperf.config.model import SlurmConfig
    from chipperf.slurm.commands import TIME_MARGIN_S, request

    cluster, test = configs(GRID, round_timeout_s=60.0)
    cluster = ClusterConfig(hosts=("slurm-node1",), executor="slurm", slurm=SlurmConfig(nodes=1))
    assert request(cluster, test, gpus=False).time_limit_min == math.ceil((9 * 60 + TIME_MARGIN_S) / 60)


def test_an_axis_spanning_2x_or_more_is_drawn_on_a_log_scale() -> None:
    """Batch 2, 8, 128 on a linear axis crowd 2 and 8 into its left edge: ticks at powers of 2."""
    from chipperf.results.read.sweepread import CaseSweep
    from chipperf.results.render.gridsweep import throughput_chart
    from chipperf.results.render.svg import log2_ticks

    assert log2_ticks(2, 128) == [2.0, 4.0, 8.0, 16.0, 32.0, 64.0, 128.0]
    assert log2_ticks(1, 4096) == [1.0, 4.0, 16.0, 64.0, 256.0, 1024.0, 4096.0]
    assert log2_ticks(3, 12) == [2.0, 4.0, 8.0, 16.0]
    axes = (Axis("global_batch_size", BATCH, (2, 8, 128)),)
    rows = tuple(SweepRound(n, {"global_batch_size": b}, "succeeded", throughput=10.0 * b,
                            throughput_unit="tokens/s") for n, b in enumerate((2, 8, 128), 1))
    ticks = throughput_chart(CaseSweep("k", axes, rows, ())).split("text-anchor=\"middle\">")[1:8]
    assert [t.split("<")[0] for t in ticks] == ["2", "4", "8", "16", "32", "64", "128"]
    narrow = (Axis("global_batch_size", BATCH, (10, 12, 16)),)
    ticks = throughput_chart(CaseSweep("k", narrow, rows, ())).split("text-anchor=\"middle\">")[1:3]
    assert [t.split("<")[0] for t in ticks] == ["0", "20"]
