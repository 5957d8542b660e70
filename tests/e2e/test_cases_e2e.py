"""End to end: `chipperf run` of bert, gpt2, distilbert, t5_small, wav2vec2, retinanet and
faster_rcnn (PyTorch) and llama2_7b (DeepSpeed) across two simulated hosts, one rank per
host, to a converged FINISHED on each case's CI config (xeon 2x1); llama3_8B and
mixtral_8x7B (PyTorch) with 2 ranks per host (xeon 2x2: tensor parallel inside each host,
FSDP2 across the two).

These runs are also each case's convergence proof on a multi-rank layout (the cases tier runs
these cases' bad-input paths and one-node layouts, not a second convergence run): each Case's
``checks`` holds what is particular to it (model size, FLOPs per unit, layout).

Each case's data is made once per session by its own prepare_data.py under
/var/lib/chipperf-test/data, which every simulated host sees at the same path.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Mapping

import pytest
from conftest import chipperf, leftovers, mlperf_compliant, write_configs

from chipperf.results.layout import read_status
from chipperf.results.read.collect import collect
from chipperf_runtime.perflog import finished_problems, parse_lines

pytestmark = pytest.mark.e2e

# not resnet's 29517: a developer running two e2e files at once on the shared simulated hosts
MASTER_PORT = 29527


@dataclass(frozen=True)
class Case:
    spec: str               # the test config's CASES key
    dir_name: str           # its folder in the run dir
    data: str               # the fixture that prepares its data dir
    work_unit: str
    metric: str
    target: float
    higher_is_better: bool
    launcher_says: str      # in each node's launcher.log ({rank}: that node's); "": no check
    nproc: int = 1          # ranks per host
    nnodes: int = 2
    # what is particular to the case, asserted on rank 0's INIT_END and FINISHED
    checks: Callable[[Mapping[str, Any], Mapping[str, Any]], None] = lambda init, finished: None

    @property
    def world(self) -> int:
        return self.nnodes * self.nproc

    def ranks(self, node: int) -> list[int]:
        return list(range(node * self.nproc, (node + 1) * self.nproc))


def bert_checks(init: Mapping[str, Any], finished: Mapping[str, Any]) -> None:
    assert init["parameters"] == 562_304 and init["seq_len"] == 64
    assert finished["work_done"] % 32 == 0     # whole global batches
    assert finished["flops_per_unit"] == 6 * 540_672 * 64 + 12 * 2 * 128 * 64**2


def per_sequence_checks(per_token: bool) -> Callable[[Mapping[str, Any], Mapping[str, Any]], None]:
    """Training FLOPs are 3 x the measured forward FLOPs per sequence, per token when the
    work unit is tokens."""
    def checks(init: Mapping[str, Any], finished: Mapping[str, Any]) -> None:
        forward, seq_len = init["forward_flops_per_sequence"], init["seq_len"]
        per_unit = 3 * forward / seq_len if per_token else 3 * forward
        assert seq_len == 64 and finished["flops_per_unit"] == per_unit > 0
    return checks


def t5_checks(init: Mapping[str, Any], finished: Mapping[str, Any]) -> None:
    assert init["seq_len"] == [64, 16] and init["weights"] == "random"
    assert finished["flops_per_unit"] == 3 * init["forward_flops_per_sequence"] > 0


def llama2_deepspeed_checks(init: Mapping[str, Any], finished: Mapping[str, Any]) -> None:
    """The tiny size (2 layers, hidden 128, 259 byte-level ids) under ZeRO stage 2."""
    assert init["parameters"] == 468_352 and init["accelerator"] == "cpu"
    assert init["deepspeed_config"]["zero_optimization"]["stage"] == 2
    assert finished["work_done"] % (32 * 128) == 0
    assert finished["flops_per_unit"] == \
        6 * (2 * (4 * 128 * 128 + 3 * 128 * 352) + 128 * 259) + 12 * 2 * 128 * 128


def llm_2x2_checks(init: Mapping[str, Any], finished: Mapping[str, Any]) -> None:
    """Tensor parallel inside each host, FSDP2 across the two."""
    assert init["layout"] == {"world_size": 4, "data_parallel": 2, "tensor_parallel": 2,
                              "pipeline_parallel": 1, "expert_parallel": 1,
                              "context_parallel": 1, "sequence_parallel": False}
    assert init["dist_backend"] == "gloo"
    assert finished["work_done"] % (32 * 128) == 0   # whole batches of 128-token sequences


BERT = Case("bert:pytorch_2.13:xeon:2:1:1", "bert-pytorch_2.13-xeon-2x1", "bert_text_dir",
            "samples", "mlm_accuracy", 0.10, True, "", checks=bert_checks)
LLAMA = Case("llama2_7b:deepspeed_0.19:xeon:2:1:1", "llama2_7b-deepspeed_0.19-xeon-2x1",
             "llama_text_dir", "tokens", "eval_loss", 2.0, False,
             "nnodes=2, num_local_procs=1, node_rank={rank}", checks=llama2_deepspeed_checks)
LLAMA3 = Case("llama3_8B:pytorch_2.13:xeon:2:2:1", "llama3_8B-pytorch_2.13-xeon-2x2",
              "llm_text_dir", "tokens", "eval_loss", 2.6, False, "", nproc=2,
              checks=llm_2x2_checks)
MIXTRAL = Case("mixtral_8x7B:pytorch_2.13:xeon:2:2:1", "mixtral_8x7B-pytorch_2.13-xeon-2x2",
               "llm_text_dir", "tokens", "eval_loss", 2.6, False, "", nproc=2,
               checks=llm_2x2_checks)

GPT2 = Case("gpt2:pytorch_2.13:xeon:2:1:1", "gpt2-pytorch_2.13-xeon-2x1", "gpt2_text_dir",
            "tokens", "lm_accuracy", 0.16, True, "", checks=per_sequence_checks(per_token=True))
DISTILBERT = Case("distilbert:pytorch_2.13:xeon:2:1:1", "distilbert-pytorch_2.13-xeon-2x1",
                  "bert_text_dir", "samples", "mlm_accuracy", 0.12, True, "",
                  checks=per_sequence_checks(per_token=False))
T5_SMALL = Case("t5_small:pytorch_2.13:xeon:2:1:1", "t5_small-pytorch_2.13-xeon-2x1",
                "t5_text_dir", "samples", "rouge1", 95.0, True, "", checks=t5_checks)

WAV2VEC2 = Case("wav2vec2:pytorch_2.13:xeon:2:1:1", "wav2vec2-pytorch_2.13-xeon-2x1",
                "w2v_audio_dir", "samples", "contrastive_accuracy", 0.55, True, "")

RETINANET = Case("retinanet:pytorch_2.13:xeon:2:1:1", "retinanet-pytorch_2.13-xeon-2x1",
                 "shapes_dir", "samples", "mAP", 0.4, True, "")
FASTER_RCNN = Case("faster_rcnn:pytorch_2.13:xeon:2:1:1", "faster_rcnn-pytorch_2.13-xeon-2x1",
                   "shapes_dir", "samples", "mAP", 0.4, True, "")


def rank0_events(node: Path) -> tuple[dict, dict]:
    """Rank 0's INIT_END and its one FINISHED."""
    events, problems = parse_lines((node / "rank0.out.log").read_text().splitlines())
    assert problems == []
    finished = [e.value for e in events if e.name == "FINISHED"]
    assert len(finished) == 1, [e.name for e in events]
    return next(e.value for e in events if e.name == "INIT_END"), finished[0]


def check_finished(case: Case, value: dict) -> None:
    assert finished_problems(value) == []
    assert value["converged"] is True, value
    assert value["world_size"] == case.world and value["work_unit"] == case.work_unit
    metric = value["metric"]
    assert (metric["name"], metric["target"], metric["higher_is_better"]) == \
        (case.metric, case.target, case.higher_is_better)
    reached = metric["value"] >= case.target if case.higher_is_better \
        else metric["value"] <= case.target
    assert reached, metric
    assert value["work_done"] > 0 and value["flops_per_unit"] > 0
    assert 0 < value["pure_compute_time_s"] < value["train_no_eval_time_s"] \
        <= value["train_time_s"] < value["e2e_time_s"]
    rate = value["throughput"]
    assert rate["unit"] == f"{case.work_unit}/s"
    assert math.isclose(rate["raw"], value["work_done"] / value["train_time_s"], rel_tol=1e-6)
    assert 0 < rate["raw"] <= rate["no_eval"] <= rate["pure_compute"]


def check_summary(case: Case, run_dir: Path, finished: dict, gemm_peak_run: Path) -> None:
    """The collected round carries the case's figures. MFU against the spec sheet is absent for
    a stated reason (the cpu vendor's xeon has no spec-sheet peak); MFU against the GEMM peak
    base/ measured on the same kind of host is there. Energy is absent with its reason where
    the hosts have no power sensor (RAPL, IPMI), and present where they have one."""
    (summary,) = collect(run_dir, gemm_peak_run).summary.cases
    (round1,) = summary.rounds
    assert round1.status == "succeeded" and round1.converged is True
    assert round1.throughput.unit == f"{case.work_unit}/s"
    assert round1.throughput.raw == pytest.approx(finished["throughput"]["raw"])
    assert round1.work_done == finished["work_done"] and round1.world_size == case.world
    assert round1.window_work and round1.window_work <= round1.work_done
    assert round1.flops_per_unit == finished["flops_per_unit"] and round1.chips == case.world
    assert summary.preset.startswith("tiny preset: "), summary   # the cpu CI config's model
    assert summary.chip_model and summary.chip_label.endswith(" (xeon)"), summary.chip_label
    assert round1.mfu is None and round1.mfu_dtype == "fp32"
    assert "no peak FLOP/s for chip xeon" in round1.reasons["mfu"], round1.reasons
    assert round1.mfu_measured is not None and 0 < round1.mfu_measured < 1.5, round1
    if round1.work_per_joule is None:
        assert round1.reasons.get("work_per_joule"), round1.reasons
    else:
        assert round1.work_per_joule > 0


@pytest.mark.parametrize("case", [BERT, LLAMA, GPT2, DISTILBERT, T5_SMALL, WAV2VEC2, LLAMA3,
                                  MIXTRAL, RETINANET, FASTER_RCNN],
                         ids=["bert_pytorch", "llama2_deepspeed", "gpt2_pytorch",
                              "distilbert_pytorch", "t5_small_pytorch", "wav2vec2_pytorch",
                              "llama3_pytorch", "mixtral_pytorch", "retinanet_pytorch",
                              "faster_rcnn_pytorch"])
def test_case_across_two_hosts(case: Case, sim_cluster, request, tmp_path, gemm_peak_run):
    data_dir = request.getfixturevalue(case.data)
    h1, h2 = sim_cluster.hosts[:2]
    cluster, test = write_configs(tmp_path, [h1.address, h2.address], {case.spec: str(data_dir)},
                                  ssh_key=sim_cluster.ssh_key, known_hosts=sim_cluster.known_hosts,
                                  master_port=MASTER_PORT)
    run = chipperf("run", "--cluster", str(cluster), "--test", str(test), cwd=tmp_path)
    assert run.returncode == 0, run
    assert run.run_dir is not None and "succeeded" in run.output

    record = json.loads((run.run_dir / "run.json").read_text())
    assert record["status"] == "succeeded"
    assert record["cases"][case.dir_name]["status"] == "succeeded"
    assert set(record["hosts"]) == {h1.address, h2.address}

    round_dir = run.run_dir / case.dir_name / "round1"
    nodes = {p.name: p for p in round_dir.iterdir()}
    expected = [f"{h1.address}_noderank0", f"{h2.address}_noderank1"]
    assert sorted(nodes) == expected
    for rank, name in enumerate(expected):
        node = nodes[name]
        assert read_status(node) == ("succeeded", ""), name
        logs = sorted(p.name for p in node.glob("rank*.out.log"))
        assert logs == [f"rank{r}.out.log" for r in case.ranks(rank)], (name, logs)
        launcher_log = (node / "launcher.log").read_text()
        if case.launcher_says:          # torchrun logs nothing that names the node's rank
            assert case.launcher_says.format(rank=rank) in launcher_log, launcher_log[-3000:]
        assert (node / "cpu_monitor.log").stat().st_size > 0
    for r in case.ranks(1):
        assert "[PerfLog]" not in (nodes[expected[1]] / f"rank{r}.out.log").read_text()

    init, finished = rank0_events(nodes[expected[0]])
    check_finished(case, finished)
    if case is BERT:
        mlperf_compliant(nodes[expected[0]] / "rank0.out.log", "bert")
    case.checks(init, finished)
    check_summary(case, run.run_dir, finished, gemm_peak_run)

    for name in ("summary.json", "summary.csv", "report.html", f"{case.dir_name}/result.json"):
        assert (run.run_dir / name).is_file(), name
    check = chipperf("check", str(run.run_dir), cwd=tmp_path, timeout=300)
    assert check.returncode == 0, check

    assert leftovers(sim_cluster, run.run_dir.name) == []
