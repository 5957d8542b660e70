"""The LLM cases (llama3_8B, mixtral_8x7B): case.yaml's full-size numbers are transformers'
meta-built model's and llmtrain.arch's formulas; plan time refuses a layout that does not
divide the world size, a pipeline or expert degree the model does not split into, and a model
whose training state does not fit the chip's memory (from the spec sheet); pipeline and expert
parallel layouts train as one process does (test_llm_two_rank_layouts.py here, and
tests/cases/test_llm_layouts.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from casemodules import BENCHMARKS, load_case_module
from llmplan import llm_catalogue, shipped_config_problems

from chipperf.config.caseneeds import needs_problems
from chipperf.config.model import CaseEntry, CaseKey, ClusterConfig, TestConfig
from chipperf.plan import check
from chipperf_runtime.vendors import get_vendor

CASES = ["llama3_8B", "mixtral_8x7B"]
PP_CASES = ["llama3_70B", "llama2_70B"]
# continue training from the checkpoint of the case beside it: the same model
CONTINUED = {"llama3_70B_continuetrain": "llama3_70B", "mixtral_8x7B_continuetrain": "mixtral_8x7B"}
# published sizes: Meta-Llama-3-8B and Mixtral-8x7B-v0.1 model cards (8.03B, 46.7B);
# Meta-Llama-3-70B 70,553,706,496; Llama-2-70b-hf 68,976,648,192 (transformers' count of the
# checkpoint; the card rounds to 70B)
PUBLISHED_PARAMS = {"llama3_8B": 8_030_261_248, "mixtral_8x7B": 46_702_792_704,
                    "llama3_70B": 70_553_706_496, "llama2_70B": 68_976_648_192}
FULL_SEQ = {"llama3_8B": 8192, "mixtral_8x7B": 4096, "llama3_70B": 8192, "llama2_70B": 4096}
PUBLISHED_PARAMS.update({case: PUBLISHED_PARAMS[of] for case, of in CONTINUED.items()})
FULL_SEQ.update({case: FULL_SEQ[of] for case, of in CONTINUED.items()})


def entry(case: str) -> Any:
    return load_case_module(f"{case}/pytorch", "run_pretraining", f"llm_models_{case}")


def case_yaml(case: str) -> dict:
    return yaml.safe_load((BENCHMARKS / case / "pytorch" / "case.yaml").read_text())


def built_on_meta(case: str, size: str) -> int:
    import torch

    spec = entry(case).SPEC
    with torch.device("meta"):
        model = spec.model_class(spec.config_class(**spec.presets[size]))
    return sum(p.numel() for p in model.parameters())


@pytest.mark.parametrize("case", CASES + PP_CASES + list(CONTINUED))
def test_case_yaml_holds_the_full_size_model_built_on_meta(case: str) -> None:
    from chipperf_runtime.training.llmtrain import arch

    presets = entry(case).SPEC.presets
    meta = case_yaml(case)
    built = {size: built_on_meta(case, size) for size in presets}
    assert built[max(presets, key=lambda s: built[s])] == PUBLISHED_PARAMS[case]
    full = max(built.values())
    assert meta["work_unit"] == "tokens"
    assert meta["full_size"] == {"params": full, "flops_per_unit": arch.train_flops_per_token(
        next(presets[s] for s in presets if built[s] == full), FULL_SEQ[case])}
    assert meta["memory"]["params"] == built
    assert all(arch.parameter_count(presets[s]) == n for s, n in built.items())


def test_llama3_flops_per_token_is_6n_plus_the_attention_term() -> None:
    from chipperf_runtime.training.llmtrain import arch

    values = entry("llama3_8B").SPEC.presets["8b"]
    matmul = 32 * (4096 * 4096 * 2 + 2 * 4096 * 1024 + 3 * 4096 * 14336) + 4096 * 128256
    assert arch.matmul_params(values) == matmul == 7_504_658_432
    assert arch.train_flops_per_token(values, 8192) == 6 * matmul + 12 * 32 * 4096 * 8192


def test_llama3_1b_preset_is_llama_3_2_1b_and_fits_one_h100() -> None:
    """The one-GPU preset: Llama-3.2-1B's shape (its config.json: 16 x 2048, GQA 32/8, SwiGLU
    8192, 128256 tokens, tied embeddings), 1,235,814,400 parameters on the meta device, whose
    training state plan time accepts on one H100."""
    from chipperf_runtime.training.llmtrain import arch

    assert built_on_meta("llama3_8B", "1b") == 1_235_814_400
    values = entry("llama3_8B").SPEC.presets["1b"]
    assert arch.matmul_params(values) == 16 * (2048 * 2048 * 2 + 2 * 2048 * 512
                                               + 3 * 2048 * 8192) + 2048 * 128256
    needs, h100 = case_yaml("llama3_8B"), get_vendor("nvidia").chip("H100")
    assert needs_problems(needs, layout(1, "1b"), 1, 1, h100, "w") == []


# ---------------------------------------------------------------- plan time


def layout(tp: int, size: str = "tiny") -> dict:
    """llama3_8B's layout knobs (no pipeline)."""
    return {"tensor_parallel": tp, "pipeline_parallel": 1, "model_size": size}


def test_needs_refuse_a_layout_that_does_not_divide_the_world() -> None:
    needs = case_yaml("llama3_8B")
    problems = needs_problems(needs, layout(3), 2, 2, None, "w")
    assert problems == [
        "w: tensor_parallel 3 does not divide the world size 4 (2 node(s) x 2 processes): choose "
        "degrees whose product divides 4; data parallel is the world size over that product"]
    assert needs_problems(needs, layout(4), 2, 2, None, "w") \
        == ["w: tensor_parallel 4 does not fit the 2 processes per node: use a divisor of 2, so "
            "that each group sits inside a node"]
    assert needs_problems(needs, layout(2), 2, 2, None, "w") == []


def test_needs_refuse_a_model_too_large_for_the_chips_memory() -> None:
    needs, a100 = case_yaml("llama3_8B"), get_vendor("nvidia").chip("A100")
    (problem,) = needs_problems(needs, layout(1, "8b"), 1, 1, a100, "w")
    assert problem.startswith("w: model_size '8b' (8,030,261,248 parameters) needs at least "
                              "119.7 GiB per chip for its training state")
    assert "more than the 80.0 GiB of one A100" in problem and "use at least 2 chips" in problem
    assert needs_problems(needs, layout(8, "8b"), 1, 8, a100, "w") == []


@pytest.mark.parametrize("case", PP_CASES)
def test_a_70b_layout_that_does_not_fit_says_so_at_plan_time(case: str) -> None:
    """TP 8 x PP 4 over 8 x 8 H100s holds the 70B training state (16 bytes per parameter over
    64 GPUs); one node of 8 does not, and plan time names the minimum."""
    needs, h100 = case_yaml(case), get_vendor("nvidia").chip("H100")
    values = {"tensor_parallel": 8, "pipeline_parallel": 4, "model_size": "70b"}
    assert needs_problems(needs, values, 8, 8, h100, "w") == []
    values["pipeline_parallel"] = 1
    (problem,) = needs_problems(needs, values, 1, 8, h100, "w")
    params = f"{PUBLISHED_PARAMS[case]:,}"
    assert problem.startswith(f"w: model_size '70b' ({params} parameters) needs at least "), problem
    chips = {"llama3_70B": 14, "llama2_70B": 13}[case]   # ceil(params x 16 B / 80 GiB)
    assert "more than the 80.0 GiB of one H100" in problem and f"use at least {chips} chips" in problem


@pytest.mark.parametrize("key, text, says", [
    ("llama3_8B:pytorch_2.13:A100:1:1:1", "from config_common import *\ntensor_parallel = 1\n",
     "needs at least 119.7 GiB per chip"),
    ("llama3_8B:pytorch_2.13:H100:2:8:1", "from config_common import *\ntensor_parallel = 3\n",
     "tensor_parallel 3 does not divide the world size 16"),
    ("llama3_70B_continuetrain:pytorch_2.13:H100:2:8:1",
     "from config_common import *\npipeline_parallel = 2\ncheckpoint = ''\n",
     "checkpoint = '': this case continues training from a checkpoint and none is named"),
    ("llama3_8B:pytorch_2.13:H100:2:8:1", "from config_common import *\nseq_len = 8190\n"
     "context_parallel = 2\n", "context_parallel 2 needs seq_len divisible by 2 x 2 = 4"),
    ("mixtral_8x7B:pytorch_2.13:H100:2:8:1", "from config_common import *\ntensor_parallel = 1\n"
     "sequence_parallel = True\n", "sequence_parallel = True needs tensor_parallel > 1"),
])
def test_plan_refuses_the_layout_or_size_before_anything_runs(tmp_path: Path, key: str,
                                                              text: str, says: str) -> None:
    parsed = CaseKey.parse(key)
    catalogue = llm_catalogue(tmp_path, parsed.model, parsed.vendor_config_name, text)
    cluster = ClusterConfig(hosts=("10.0.0.1", "10.0.0.2"), master_port=29600, work_root="/w")
    test = TestConfig(vendor="nvidia", cases=(CaseEntry(parsed, "/data"),),
                      result_root=str(tmp_path / "result"))
    problems = check(cluster, test, catalogue)
    assert len(problems) == 1 and says in problems[0], problems
    assert parsed.vendor_config_name in problems[0]


def test_every_shipped_llm_config_passes_plan_time_checks() -> None:
    for name, problems in shipped_config_problems(CASES + PP_CASES + list(CONTINUED)).items():
        assert problems == [], name


@pytest.mark.parametrize("case", list(CONTINUED))
def test_a_continue_training_case_builds_the_model_its_checkpoint_writer_trains(case: str) -> None:
    """The same presets (model.json kept beside the case, as each case folder ships alone)."""
    assert entry(case).SPEC.presets == entry(CONTINUED[case]).SPEC.presets


def test_the_case_refuses_a_tensor_parallel_degree_the_heads_do_not_split_into() -> None:
    from chipperf_runtime.training.llmtrain.parallel import Layout, layout_problems

    tiny = entry("llama3_8B").SPEC.presets["tiny"]
    assert layout_problems(Layout(4, 4), 4, tiny) == [
        "tensor_parallel 4 must divide the 4 attention heads and the 2 key/value heads"]
    assert layout_problems(Layout(4, 2), 2, {**tiny, "intermediate_size": 175}) == [
        "tensor_parallel 2 must divide the MLP width 175"]
    assert layout_problems(Layout(4, 2), 2, tiny) == []


def test_the_case_refuses_pipeline_and_expert_degrees_the_model_does_not_split_into() -> None:
    from chipperf_runtime.training.llmtrain.parallel import Layout, layout_problems

    llama, mixtral = (entry(c).SPEC.presets["tiny"] for c in CASES)
    assert layout_problems(Layout(4, 1, pipeline_parallel=4), 4, llama) == [
        "pipeline_parallel 4: 4 pipeline stages do not divide the 2 decoder layers: each stage "
        "holds an equal contiguous slice"]
    assert layout_problems(Layout(2, 1, 2, pipeline_schedule="interleaved_1f1b"), 2, llama) == [
        "pipeline_parallel 2: 4 pipeline stages (2 per rank, interleaved_1f1b) do not divide "
        "the 2 decoder layers: each stage holds an equal contiguous slice"]
    assert layout_problems(Layout(2, 1, 2, pipeline_schedule="zb"), 2, llama) == [
        "pipeline_schedule 'zb' is not one of gpipe, 1f1b, interleaved_1f1b"]
    assert layout_problems(Layout(6, 1, expert_parallel=3), 6, mixtral) == [
        "expert_parallel 3 does not divide the 4 experts per layer: each expert-parallel rank "
        "holds an equal share"]
    assert layout_problems(Layout(4, 2, expert_parallel=4), 4, mixtral) == [
        "expert_parallel 4 does not divide the data-parallel degree 2 (world 4 / tensor_parallel"
        " 2 / pipeline_parallel 1): expert parallelism uses data-parallel ranks"]
    assert layout_problems(Layout(2, 1, expert_parallel=2), 2, llama) == [
        "expert_parallel 2 needs a mixture-of-experts model (this one has 1 expert per layer): "
        "use 1"]
    assert layout_problems(Layout(8, 2, 2, 2), 4, llama | {"num_hidden_layers": 4}) == [
        "expert_parallel 2 needs a mixture-of-experts model (this one has 1 expert per layer): "
        "use 1"]
    assert layout_problems(Layout(8, 2, 2), 4, llama) == []
    assert layout_problems(Layout(8, 2, 1, 4), 4, mixtral) == []


def test_the_case_refuses_a_sequence_split_its_attention_or_world_cannot_take() -> None:
    from chipperf_runtime.training.llmtrain.parallel import Layout, layout_problems, sequence_problems

    llama = entry("llama3_8B").SPEC.presets["tiny"]
    assert layout_problems(Layout(4, 2, context_parallel=3), 4, llama) == [
        "tensor_parallel 2 x context_parallel 3 does not divide the world size 4: choose degrees "
        "whose product divides 4 (data parallel is the world over that product)"]
    assert sequence_problems(Layout(2, context_parallel=2), 32, "alibi_sdpa") == [
        "context_parallel 2: this case attends with 'alibi_sdpa', which has no context-parallel "
        "form (llmtrain/context.py replaces sdpa): use 1"]
    assert sequence_problems(Layout(2, sequence_parallel=True), 32, "sdpa") == [
        "sequence_parallel = True needs tensor_parallel > 1 (Megatron's sequence parallelism "
        "splits the norms' tokens over the tensor-parallel group): set tensor_parallel, or "
        "sequence_parallel = False"]
    assert sequence_problems(Layout(8, 2, context_parallel=2, sequence_parallel=True), 32,
                             "sdpa") == []
    assert Layout(8, 2, context_parallel=2).data_parallel == 2


@pytest.mark.parametrize("case, values, says", [
    ("llama3_8B", {"tensor_parallel": 1, "pipeline_parallel": 4, "model_size": "8b"},
     "pipeline_parallel 4 does not divide the world size 6 (1 node(s) x 6 processes)"),
    ("llama3_8B", {"tensor_parallel": 2, "pipeline_parallel": 3, "model_size": "8b"},
     "pipeline_parallel 3 does not divide the 32 decoder layers of model_size '8b': use a "
     "divisor of 32"),
    ("mixtral_8x7B", {"tensor_parallel": 1, "expert_parallel": 3, "model_size": "8x7b"},
     "expert_parallel 3 does not divide the 8 experts per layer of model_size '8x7b': use a "
     "divisor of 8"),
    ("mixtral_8x7B", {"tensor_parallel": 2, "expert_parallel": 2, "model_size": "tiny"},
     "expert_parallel 2 does not divide the data-parallel degree 3 (world size 6 over 2): its "
     "groups are data-parallel ranks"),
])
def test_needs_refuse_pipeline_and_expert_degrees_at_plan_time(case: str, values: dict,
                                                               says: str) -> None:
    """One clear message each (6 processes on one node, no memory check)."""
    (problem,) = needs_problems(case_yaml(case), values, 1, 6, None, "w")
    assert problem.startswith(f"w: {says}"), problem


def test_mixtral_counts_the_two_routed_experts_of_eight() -> None:
    from chipperf_runtime.training.llmtrain import arch

    values = entry("mixtral_8x7B").SPEC.presets["8x7b"]
    attention = 4096 * 4096 * 2 + 2 * 4096 * 1024
    active = 32 * (attention + 2 * 3 * 4096 * 14336 + 4096 * 8) + 4096 * 32000
    assert arch.matmul_params(values) == active == 12_748_587_008
    assert arch.train_flops_per_token(values, 4096) == 6 * active + 12 * 32 * 4096 * 4096


def test_mixtral_does_not_fit_eight_80gb_gpus_but_fits_eight_h200s() -> None:
    needs, nvidia = case_yaml("mixtral_8x7B"), get_vendor("nvidia")
    values = {"tensor_parallel": 8, "expert_parallel": 1, "model_size": "8x7b"}
    (problem,) = needs_problems(needs, values, 1, 8, nvidia.chip("H100"), "w")
    assert "needs at least 87.0 GiB per chip" in problem and "use at least 9 chips" in problem
    assert needs_problems(needs, values, 1, 8, nvidia.chip("H200"), "w") == []
    assert needs_problems(needs, values, 2, 8, nvidia.chip("A100"), "w") == []


def test_tensor_parallel_expert_slices_add_up_to_the_whole_block() -> None:
    """One process: the two tensor-parallel slices of every expert (ParallelExperts over a
    group of 2, without the all-reduce) add up to transformers' MixtralExperts."""
    import torch
    from transformers import MixtralConfig
    from transformers.models.mixtral.modeling_mixtral import MixtralExperts

    from chipperf_runtime.training.llmtrain.experts import ParallelExperts

    torch.manual_seed(0)
    config = MixtralConfig(hidden_size=16, intermediate_size=8, num_local_experts=4)
    full = MixtralExperts(config)
    torch.nn.init.normal_(full.gate_up_proj)
    torch.nn.init.normal_(full.down_proj)
    halves = [ParallelExperts(full, (None, rank, 2)) for rank in (0, 1)]
    for half in halves:
        half.size = 1  # the partial output alone (no group to sum over here)
    hidden, index = torch.randn(10, 16), torch.randint(0, 4, (10, 2))
    weights = torch.rand(10, 2)
    whole = sum(half(hidden, index, weights) for half in halves)
    assert torch.allclose(whole, full(hidden, index, weights), atol=1e-5)
    assert halves[1].take("gate_up_proj", full.gate_up_proj.detach()).shape == (4, 8, 16)
    assert halves[1].full_shape("down_proj") == full.down_proj.shape


def test_the_grouped_gemm_is_a_matmul_per_expert_segment() -> None:
    """torch._grouped_mm (when the strides allow) and the per-segment fallback agree with one
    matmul per local expert, empty experts included."""
    import torch

    from chipperf_runtime.training.llmtrain.experts import grouped_linear

    torch.manual_seed(0)
    counts = torch.tensor([3, 0, 5])
    weight = torch.randn(3, 8, 16)
    for width in (16, 15):   # 15 floats: not a multiple of 16 bytes, the fallback
        x, w = torch.randn(8, width), weight[:, :, :width]
        expected = torch.cat([x[:3] @ w[0].T, x[3:] @ w[2].T])
        assert torch.allclose(grouped_linear(x, w.contiguous(), counts), expected, atol=1e-5)


def test_the_interleaved_schedule_needs_micro_batches_in_multiples_of_the_ranks() -> None:
    from chipperf_runtime.training.driver.config import Config
    from chipperf_runtime.training.llmtrain.case import microbatch_problems
    from chipperf_runtime.training.llmtrain.parallel import Layout

    layout = Layout(4, 1, 2, pipeline_schedule="interleaved_1f1b")   # 2 data-parallel ranks
    assert microbatch_problems(Config({"global_batch_size": 8, "micro_batch_size": 2}, {}),
                               layout) == []
    assert microbatch_problems(Config({"global_batch_size": 6, "micro_batch_size": 1}, {}),
                               layout) == [
        "pipeline_schedule 'interleaved_1f1b' needs the micro-batches per step (3: "
        "global_batch_size / data parallel / micro_batch_size) to be a multiple of "
        "pipeline_parallel 2"]


@pytest.mark.parametrize("cp", [2, 4])
def test_context_parallel_chunks_cover_the_sequence_once_with_equal_causal_work(cp: int) -> None:
    """Head-tail order (llmtrain/context.py): rank r holds chunks r and 2cp-1-r, so every rank
    has the same number of (query, key) pairs under the causal mask."""
    from chipperf_runtime.training.llmtrain.context import chunk_positions

    seq = 8 * cp
    parts = [chunk_positions(seq, cp, r) for r in range(cp)]
    assert sorted(int(p) for part in parts for p in part) == list(range(seq))
    work = {int((part + 1).sum()) for part in parts}    # keys at or before each query
    assert len(work) == 1, work
    assert parts[0].tolist()[:4] == [0, 1, 2, 3] and parts[0].tolist()[-1] == seq - 1
