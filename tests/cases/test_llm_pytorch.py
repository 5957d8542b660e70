"""The LLM cases (llama3_8B, mixtral_8x7B, llama3_70B; PyTorch) on the host: one node
launcher with 4 pipeline stages, or two with expert parallelism across them, train the tiny CI
size to its eval-loss target on gloo. Tensor parallel inside a node with FSDP2 across two:
tests/e2e/test_cases_e2e.py (two hosts through the engine).

The data dir is made by the case's own prepare_data.py from text already on the machine; the
vendor configs are the cpu CI ones. Needs torch and transformers (requirements-test.txt).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from caserun import Case, assert_case_error, check_converged, free_port, init_end, perflog_events

from chipperf.launchers import pytorch as pytorch_launcher

CASES = {"llama3_8B": Case("llama3_8B", "pytorch"), "mixtral_8x7B": Case("mixtral_8x7B", "pytorch"),
         "llama3_70B": Case("llama3_70B", "pytorch")}


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("llm_ci")
    subprocess.run([sys.executable, str(CASES["llama3_8B"].dir / "prepare_data.py"), "--output",
                    str(out)], check=True, timeout=300)
    return out


def launch(case: Case, corpus: Path, out: Path, nnodes: int, nproc: int) -> list[int]:
    """One chipperf torchrun launcher per node, all on this host (node dirs out/node<K>)."""
    port, procs = free_port(), []
    for node in range(nnodes):
        node_dir = out / f"node{node}"
        node_dir.mkdir(parents=True)
        ctx = case.context(corpus, f"config_xeonx{nnodes}x{nproc}.py", node_dir, nproc,
                           nnodes=nnodes, node_rank=node, master_port=port)
        env = case.env(NNODES=str(nnodes), NODE_RANK=str(node), NPROC_PER_NODE=str(nproc))
        with open(node_dir / "launcher.log", "w") as log:
            procs.append(subprocess.Popen(pytorch_launcher.command(ctx), env=env, stdout=log,
                                          stderr=subprocess.STDOUT))
    try:
        return [p.wait(timeout=600) for p in procs]
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()


def all_logs(out: Path) -> str:
    return "\n".join(f"== {p}\n{p.read_text()[-3000:]}" for p in sorted(out.glob("node*/*.log")))


def test_four_pipeline_stages_reach_the_target(corpus: Path, tmp_path: Path) -> None:
    """llama3_70B's CI size (4 layers) on 1 node x 4 processes: one layer per stage, 1F1B over
    each step's 4 micro-batches; the loss is the last stage's, broadcast; one rank reports."""
    codes = launch(CASES["llama3_70B"], corpus, tmp_path, nnodes=1, nproc=4)
    assert codes == [0], all_logs(tmp_path)
    events = perflog_events((tmp_path / "node0" / "rank0.out.log").read_text())
    finished = check_converged(events)
    assert init_end(events)["layout"] == {
        "world_size": 4, "data_parallel": 1, "tensor_parallel": 1, "pipeline_parallel": 4,
        "expert_parallel": 1, "pipeline_schedule": "1f1b"}
    assert finished["work_done"] > 0 and finished["work_done"] % (32 * 128) == 0


def test_expert_parallel_across_nodes_reaches_the_target(corpus: Path, tmp_path: Path) -> None:
    """mixtral_8x7B's CI size on 2 nodes x 1 process with expert_parallel 2: each node holds 2
    of the 4 experts per layer, tokens cross by all-to-all."""
    codes = launch(CASES["mixtral_8x7B"], corpus, tmp_path, nnodes=2, nproc=1)
    assert codes == [0, 0], all_logs(tmp_path)
    events = perflog_events((tmp_path / "node0" / "rank0.out.log").read_text())
    check_converged(events)
    assert init_end(events)["layout"] == {
        "world_size": 2, "data_parallel": 2, "tensor_parallel": 1, "pipeline_parallel": 1,
        "expert_parallel": 2}


# ---------------------------------------------------------------- errors before training


def test_a_layout_that_does_not_divide_the_world_fails(corpus: Path) -> None:
    """(The layout checks are llmtrain's, the same for both cases.)"""
    result = CASES["llama3_8B"].run_config(corpus, "--set", "tensor_parallel=3")
    assert_case_error(result, "tensor_parallel 3 does not divide the world size 1")


def test_a_nan_loss_ends_the_case_as_failed_at_its_step(corpus: Path) -> None:
    result = CASES["llama3_8B"].run_config(corpus, "--set", "learning_rate=1e30",
                                           "--set", "warmup_steps=1", "--set", "grad_clip_norm=0.0")
    assert result.returncode == 2, result.stderr[-3000:]
    assert "chipperf case error: training diverged: loss is nan at step" in result.stderr
    assert "TRAIN_START" in result.stdout and "FINISHED" not in result.stdout


def test_performance_mode_times_300_style_fixed_steps_on_one_rank(corpus: Path) -> None:
    """FlagPerf's LLM way (a fixed step count, here 2 warm-up + 4 timed): FINISHED from the
    timed steps, no evaluation, tokens as the unit."""
    result = CASES["llama3_8B"].run_config(corpus, "--set", "run_mode=performance", "--set",
                                           "perf_warmup_steps=2", "--set", "timed_steps=4")
    assert result.returncode == 0, result.stderr[-3000:]
    events = perflog_events(result.stdout)
    assert "EVALUATE" not in [e.name for e in events]
    finished = events[-1].value
    assert finished["run_mode"]["timed_last_step"] == 6 and finished["work_unit"] == "tokens"
    assert finished["work_done"] == 4 * finished["run_mode"]["whole_run"]["work_done"] // 6
    assert finished["converged"] is False and finished["metric"]["value"] is None
