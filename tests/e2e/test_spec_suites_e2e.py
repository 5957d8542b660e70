"""End to end: the base/ and operation/ suites through the engine on the simulated cluster.

FlagPerf's host.yaml form (HOSTS, NPROC_PER_NODE, VENDOR, CHIP, CASES "<spec>": "<framework>"),
the cpu vendor's image (the same image as training's PyTorch cases), two simulated hosts:
every base spec a CPU has, intra-node all-reduce across ranks, inter-node all-reduce and P2P
across the two hosts; then one operator of each kind. Each case's FINISHED is checked for what the suite
promises (value and unit, method, peak share or its reason), and nothing is left on a host.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from conftest import REPO, leftovers, run_suite

from chipperf.results.layout import read_status
from chipperf.results.read.check import check
from chipperf_runtime.perflog import parse_lines

pytestmark = pytest.mark.e2e

# Every spec a CPU has (computation-TF32 and interconnect-h2d are reported unsupported on it:
# tests/cases/test_base_specs.py).
BASE_SPECS = ("computation-FP64", "computation-FP32", "computation-FP16", "computation-BF16",
              "computation-INT8", "computation-FP8", "main_memory-bandwidth",
              "main_memory-capacity", "interconnect-P2P_intraserver",
              "interconnect-MPI_intraserver", "interconnect-P2P_interserver",
              "interconnect-MPI_interserver")
sys.path.insert(0, str(REPO / "operation" / "benchmarks"))
from chipperf_runtime.operation.flagperf_ops import FLAGPERF_OPS  # noqa: E402

# Every operator's program runs on this host in the cases tier (tests/cases/test_operation_ops.py,
# test_operation_flagperf_ops.py); through the engine, where each costs a container exec and a
# torch import (~3 s), one of each kind runs: GEMM-like (TFLOP/s), convolution, attention,
# normalisation, reduction, lookup, elementwise; and two of FlagPerf's 32 table-driven ones.
OPERATORS = ("mm", "conv2d", "scaled_dot_product_attention", "layer_norm", "sum", "embedding",
             "softmax")
FLAGPERF_SAMPLE = ("bitwise_and:INT32", "sub:FP32")


def finished_events(run_dir: Path) -> dict[str, dict]:
    """Case dir -> the FINISHED of its reporting rank (node 0, rank 0), after checking that
    every node of every case succeeded."""
    out = {}
    for case_dir in sorted(p for p in run_dir.iterdir() if (p / "round1").is_dir()):
        nodes = sorted((case_dir / "round1").iterdir())
        for node in nodes:
            assert read_status(node) == ("succeeded", ""), (case_dir.name, node.name)
        events, problems = parse_lines((nodes[0] / "rank0.out.log").read_text().splitlines())
        assert problems == [], (case_dir.name, problems)
        (out[case_dir.name],) = [e.value for e in events if e.name == "FINISHED"]
        assert (nodes[0] / "cpu_monitor.log").stat().st_size > 0
    return out


def test_base_specs_on_two_hosts(tmp_path, sim_cluster):
    proc, run_dir = run_suite(tmp_path, sim_cluster, "base",
                              {spec: "pytorch_2.13" for spec in BASE_SPECS})
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-8000:]
    record = json.loads((run_dir / "run.json").read_text())
    assert record["suite"] == "base" and record["status"] == "succeeded"
    finished = finished_events(run_dir)
    by_spec = {f["spec"]: f for f in finished.values()}
    assert sorted(by_spec) == sorted(BASE_SPECS)
    for spec, f in by_spec.items():
        assert f["value"] > 0 and f["unit"] and f["method"], (spec, f)
    assert by_spec["computation-FP32"]["unit"] == "TFLOP/s"
    for spec in ("interconnect-MPI_interserver", "interconnect-P2P_interserver"):
        assert by_spec[spec]["unit"] == "GB/s"
        assert by_spec[spec]["world_size"] >= 2  # across the two hosts
    allreduce = by_spec["interconnect-MPI_interserver"]
    n = allreduce["world_size"]  # nccl-tests' all-reduce bus bandwidth: algbw * 2(n-1)/n
    assert allreduce["busbw_gbs"] == pytest.approx(allreduce["algbw_gbs"] * 2 * (n - 1) / n)
    assert (run_dir / "report.html").is_file()
    assert check(run_dir).problems == []  # the result-directory contract holds
    assert leftovers(sim_cluster, run_dir.name) == []


def test_one_operator_of_each_kind_on_the_engine(tmp_path, sim_cluster):
    assert all((REPO / "operation" / "benchmarks" / op / "pytorch" / "main.py").is_file()
               and op not in FLAGPERF_OPS for op in OPERATORS)
    cases = {f"{op}:0:nativetorch:xeon": "pytorch_2.13"
             for op in (*(f"{o}:FP32" for o in OPERATORS), *FLAGPERF_SAMPLE)}
    proc, run_dir = run_suite(tmp_path, sim_cluster, "operation", cases)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-8000:]
    finished = finished_events(run_dir)
    assert len(finished) == len(OPERATORS) + len(FLAGPERF_SAMPLE)
    for case_dir, f in finished.items():
        assert f["correctness"]["passed"] is True and f["converged"] is True, (case_dir, f)
        latency = f["latency_ms"]
        assert 0 < latency["p50"] <= latency["p90"] <= latency["p99"], (case_dir, latency)
    assert check(run_dir).problems == []
    assert leftovers(sim_cluster, run_dir.name) == []


def test_base_toolkits_beside_the_benchmarks(tmp_path, sim_cluster):
    """BENCHMARKS_OR_TOOLKITS: "BENCHMARK,TOOLKIT" on one host: main_memory-bandwidth by
    chipperf's PyTorch program and by the cpu vendor's toolkit (STREAM's triad in C with
    OpenMP, built by the image's gcc in the case container), two cases of one run; the
    toolkit's figure is recorded with method toolkit and its own workload fingerprint, and
    the reports say which is which. (The cpu computation-FP32 toolkit and broken main.sh
    files run in tests/cases/test_base_specs.py.)"""
    proc, run_dir = run_suite(tmp_path, sim_cluster, "base", {"main_memory-bandwidth": "pytorch_2.13"},
                              hosts=1, nproc=1, master_port=29535,
                              BENCHMARKS_OR_TOOLKITS="BENCHMARK,TOOLKIT")
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-8000:]
    finished = finished_events(run_dir)
    bench_dir, tool_dir = (f"main_memory-bandwidth{m}-pytorch_2.13-xeon-1x1" for m in ("", "-toolkit"))
    assert sorted(finished) == [bench_dir, tool_dir]
    bench, tool = finished[bench_dir], finished[tool_dir]
    assert "measured_by" not in bench and tool["measured_by"] == "toolkit"
    assert bench["unit"] == tool["unit"] == "GB/s" and bench["value"] > 0 and tool["value"] > 0
    assert tool["method"]["printed"].startswith("[FlagPerf Result]main_memory-bandwidth=")
    assert tool["method"]["timing"].startswith("the toolkit's own timed window")
    (log,) = (run_dir / tool_dir / "round1").glob("*/toolkit.log.txt")
    assert tool["method"]["printed"] in log.read_text()
    cases = {c["dir_name"]: c for c in json.loads((run_dir / "summary.json").read_text())["cases"]}
    assert (cases[bench_dir]["method"], cases[tool_dir]["method"]) == ("benchmark", "toolkit")
    assert cases[bench_dir]["fingerprint"]["case"] != cases[tool_dir]["fingerprint"]["case"]
    assert "measured by the vendor's toolkit" in (run_dir / "summary.md").read_text()
    assert check(run_dir).problems == []
    assert leftovers(sim_cluster, run_dir.name) == []
