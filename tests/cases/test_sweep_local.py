"""A 3 x 3 SWEEPS grid of the gpt2 case run locally on the cpu vendor under a memory cap
(RLIMIT_AS): the plan's points, one rank per round with the round's --set arguments, recorded
by the engine's RunRecord as a run records them; the largest batch runs out of memory, the
sweep goes on, and sweep.csv and report.html name batch 2 as the edge.

Each round is a process as a container's rank would be (no container: RLIMIT_AS caps a local
run as docker --memory caps the cpu vendor's container). Needs torch and transformers.
"""

from __future__ import annotations

import csv
import io
import resource
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from caserun import Case

from chipperf.config.model import CaseEntry, CaseKey, ClusterConfig, TestConfig
from chipperf.config.sweep import as_sweep
from chipperf.plan import check, make_plan
from chipperf.plan.case import override_args
from chipperf.plan.model import CasePlan, RoundPlan
from chipperf.plan.sweep import point_args
from chipperf.results import layout
from chipperf.results.report import write_reports
from chipperf.run.outcome import RoundOutcome
from chipperf.run.record import RunRecord
from chipperf.suites.catalogue import Catalogue

REPO = Path(__file__).resolve().parents[2]
CATALOGUE = Catalogue.scan(REPO / "training")
GPT2 = Case("gpt2", "pytorch")
KEY = "gpt2:pytorch_2.13:xeon:1:1:1"
# batch 20000 x seq 8 is 160,000 tokens: a few of its activations pass the cap; the other
# points stay far below it (rank 0's peak RSS at batch 2 x seq 8: ~570 MB on this machine)
GRID = {"global_batch_size": [1, 2, 20000], "seq_len": [8, 12, 16]}
CAP_BYTES = 2 * 2**30
OVERRIDES = {"run_mode": "performance", "perf_warmup_steps": 1, "timed_steps": 1,
             "eval_samples": 8}
NODE = "127.0.0.1_noderank0"


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("gpt2_ci")
    subprocess.run([sys.executable, str(GPT2.dir / "prepare_data.py"), "--output", str(out)],
                   check=True, timeout=300)
    return out


def capped() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (CAP_BYTES, CAP_BYTES))


def run_point(case: CasePlan, rnd: RoundPlan, test: TestConfig, corpus: Path,
              run_dir: Path) -> RoundOutcome:
    node_dir = run_dir / case.dir_name / f"round{rnd.number}" / NODE
    node_dir.mkdir(parents=True)
    args = [*override_args(test, CATALOGUE.suite), *point_args(rnd.point, CATALOGUE.suite)]
    started = int(time.time() * 1000)
    with (node_dir / "rank0.out.log").open("w") as log:
        done = subprocess.run([sys.executable, str(GPT2.entry), "--data_dir", str(corpus),
                               "--extern_config_dir", str(GPT2.cpu_configs),
                               "--extern_config_file", "config_xeonx1x1.py",
                               "--output_dir", str(node_dir), *args],
                              env=GPT2.env(), stdout=log, stderr=subprocess.STDOUT,
                              preexec_fn=capped, timeout=300)
    status = "succeeded" if done.returncode == 0 else "failed"
    reason = "" if done.returncode == 0 else f"rank 0 exited with {done.returncode}"
    layout.write_status(node_dir, status, reason)
    return RoundOutcome(rnd.number, status, reason, started, int(time.time() * 1000),
                        {NODE: status}, {NODE: {"exit_code": done.returncode}})


def test_a_3x3_sweep_goes_past_its_out_of_memory_points_and_reports_the_edge(
        corpus: Path, tmp_path: Path) -> None:
    cluster = ClusterConfig(hosts=("127.0.0.1",), master_port=29600, work_root="/w")
    test = TestConfig(vendor="cpu", cases=(CaseEntry(CaseKey.parse(KEY), str(corpus)),),
                      overrides=OVERRIDES, sweeps={KEY: as_sweep(GRID)}, round_timeout_s=300.0,
                      result_root=str(tmp_path))
    assert check(cluster, test, CATALOGUE) == []
    plan = make_plan(cluster, test, CATALOGUE, "run20261202000000", tmp_path)
    plan.result_dir.mkdir()
    record = RunRecord(plan, cluster, test, "training")
    case = plan.cases[0]
    with ThreadPoolExecutor(max_workers=2) as pool:
        outcomes = list(pool.map(lambda r: run_point(case, r, test, corpus, plan.result_dir),
                                 case.rounds))
    for rnd, outcome in zip(case.rounds, outcomes):
        record.round(case.dir_name, {**outcome.to_dict(), "point": dict(rnd.point)})
    record.case(case.dir_name, status="failed", reason="rounds 7-9 ran out of memory")
    record.finish("failed")
    write_reports(plan.result_dir)

    rows = list(csv.DictReader(io.StringIO((plan.result_dir / "sweep.csv").read_text())))
    print(*(f"{r['point']}: {r['status']} {r['throughput']} {r['peak_memory_bytes']} "
            f"{r['reason'][:120]}" for r in rows), sep="\n")
    assert [r["status"] for r in rows] == ["succeeded"] * 6 + ["oom"] * 3
    assert all("can't allocate memory" in r["reason"] for r in rows[6:])
    assert all(float(r["throughput"]) > 0 and int(r["peak_memory_bytes"]) > 0 and
               r["memory_kind"] == "host memory: rank 0's peak RSS" for r in rows[:6])
    page = (plan.result_dir / "report.html").read_text()
    for seq in (8, 12, 16):
        assert f"seq_len={seq}: global_batch_size 2 fits, 20000 ran out of memory" in page
    assert "Throughput vs global_batch_size (tokens/s), a line per seq_len" in page
    assert "Peak memory vs seq_len, a line per global_batch_size" in page
    assert "<p>Peak memory: host memory: rank 0&#x27;s peak RSS.</p>" in page
