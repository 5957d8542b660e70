"""The LLM cases' Megatron-Core build (llmtrain.nvidia.megatron, ``implementation = "megatron_core"``)
as far as a CPU takes it: megatron-core's GPTModel, built from each case's tiny preset with its
local layer spec, has the native case's parameter count (llmtrain.arch), so the two
implementations train one architecture; its forward stops at CUDA (RoPE moves its frequencies
to ``torch.cuda.current_device()``), which is why the plan refuses Megatron-Core without a GPU
and the training proof needs one (docs/flagperf-names.md)."""

from __future__ import annotations

import socket
from collections.abc import Iterator

import pytest
from casemodules import BENCHMARKS, load_case_module

from chipperf_runtime.training.driver.config import load_case_config
from chipperf_runtime.training.llmtrain import arch
from chipperf_runtime.training.llmtrain.parallel import Layout

CASES = ["llama3_8B", "mixtral_8x7B", "llama3_70B", "llama2_70B"]


@pytest.fixture(scope="module")
def one_process_model_parallel() -> Iterator[None]:
    """torch.distributed (gloo, world 1) and Megatron-Core's parallel_state, torn down after."""
    import torch.distributed as dist
    from megatron.core import parallel_state

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}", rank=0, world_size=1)
    parallel_state.initialize_model_parallel(1, 1)
    yield
    parallel_state.destroy_model_parallel()
    dist.destroy_process_group()


def tiny(case: str):
    config = load_case_config(BENCHMARKS / case / "pytorch" / "config", None,
                              {"model_size": "tiny", "dtype": "fp32"})
    return config, presets(case)["tiny"]


def presets(case: str):
    return load_case_module(f"{case}/pytorch", "run_pretraining", f"megatron_{case}").SPEC.presets


@pytest.mark.parametrize("case", CASES)
def test_megatron_core_builds_the_cases_architecture(case, one_process_model_parallel):
    from chipperf_runtime.training.llmtrain.nvidia import megatron

    config, values = tiny(case)
    assert config.implementation == "native"          # the knob's default
    model = megatron.build_model(config, values, Layout(1), cpu_initialization=True)
    assert sum(p.numel() for p in model.parameters()) == arch.parameter_count(values)
    assert megatron.layout_problems(config, values, Layout(1)) == []


def test_its_forward_needs_cuda_on_this_machine(one_process_model_parallel):
    import torch

    from chipperf_runtime.training.llmtrain.nvidia import megatron

    config, values = tiny("llama3_8B")
    model = megatron.build_model(config, values, Layout(1), cpu_initialization=True)
    window = torch.randint(0, values["vocab_size"], (1, 9))
    with pytest.raises((AssertionError, RuntimeError), match="CUDA"):
        model(window[:, :-1], torch.arange(8).unsqueeze(0), None, labels=window[:, 1:])


def test_what_the_megatron_core_build_cannot_run_is_said_before_training():
    from chipperf_runtime.training.llmtrain.nvidia import megatron

    config, values = tiny("llama3_8B")
    problems = megatron.layout_problems(config, {**values, "vocab_size": 259},
                                        Layout(4, tensor_parallel=2, pipeline_parallel=2,
                                               pipeline_schedule="gpipe"))
    assert any("Megatron-Core's 1F1B schedule" in p for p in problems)
    assert any("context_parallel 2" in p for p in megatron.layout_problems(
        config, values, Layout(2, context_parallel=2)))
    assert any("vocab_size 259" in p and "tensor_parallel 2" in p for p in problems)
    full, one_b = presets("llama3_8B")["8b"], presets("llama3_8B")["1b"]
    assert megatron.layout_problems(config, full, Layout(8, tensor_parallel=8)) == []
    assert any("scales RoPE" in p for p in megatron.layout_problems(config, one_b, Layout(1)))


@pytest.mark.parametrize("case, size, layout", [
    ("llama3_8B", "8b", Layout(8, tensor_parallel=8)),
    ("llama3_70B", "70b", Layout(64, tensor_parallel=8, pipeline_parallel=4)),
    ("llama2_70B", "70b", Layout(32, tensor_parallel=8, pipeline_parallel=4)),
    ("mixtral_8x7B", "8x7b", Layout(32, tensor_parallel=4, expert_parallel=8)),
])
def test_the_full_sizes_on_flagperf_s_layouts_make_valid_megatron_configs(case, size, layout):
    """FlagPerf's Megatron layouts (llama3_70B H100x8x8, llama2_70B H800x4x8, mixtral_8x7B
    H100x4x8) and llama3_8B's TP 8 at full size: Megatron-Core's own checks accept them, with
    no dropout and no sequence parallelism (the local spec's torch norm refuses it)."""
    from megatron.core.transformer.transformer_config import TransformerConfig

    from chipperf_runtime.training.llmtrain.nvidia import megatron

    config = load_case_config(BENCHMARKS / case / "pytorch" / "config", None,
                              {"implementation": "megatron_core"})
    values = presets(case)[size]
    assert megatron.layout_problems(config, values, layout) == []
    made = TransformerConfig(**megatron.transformer_config(config, values, layout))
    assert not made.sequence_parallel and made.hidden_dropout == made.attention_dropout == 0.0
    assert (made.tensor_model_parallel_size, made.pipeline_model_parallel_size,
            made.expert_model_parallel_size) == (layout.tensor_parallel, layout.pipeline_parallel,
                                                 layout.expert_parallel)
    assert made.num_moe_experts == values.get("num_local_experts")
