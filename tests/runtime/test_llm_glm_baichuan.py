"""chatglm3_6b and baichuan2_13b: the full sizes built on the meta device are the published
counts and case.yaml's; Baichuan2's ALiBi attention is the reference computation (scores +
slope x (key - query) under the causal mask), with Baichuan's slopes for 40 heads; NormHead
normalises the rows; FlagPerf's one-file .npy data is read; the shipped configs plan."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import yaml
from casemodules import BENCHMARKS, load_case_module
from llmplan import shipped_config_problems

# ChatGLM3-6B: 6,243,584,000, what THUDM's ChatGLMForConditionalGeneration counts (printed
# by its users' model summaries, and the ChatGLM2/3-6B breakdown: 65024 x 4096 embedding, 28
# layers, 65024 x 4096 output layer). Baichuan2-13B: the count of its published config.json
# (40 x 5120, 40 heads, FFN 13696, vocabulary 125696: the Baichuan 2 report's Table 2 and
# baichuan-inc/Baichuan2-13B-Base), 13,896,668,160 ("13B" on the model card).
PUBLISHED = {"chatglm3_6b": ("6b", 6_243_584_000, 4096),
             "baichuan2_13b": ("13b", 13_896_668_160, 4096)}


def spec(case: str) -> Any:
    return load_case_module(f"{case}/pytorch", "run_pretraining", f"glm_baichuan_{case}").SPEC


def built_on_meta(case: str, size: str) -> Any:
    import torch

    s = spec(case)
    config = s.config_class(**s.presets[size], attn_implementation=s.attention)
    with torch.device("meta"):
        model = s.model_class(config)
        return s.adapt(model) if s.adapt else model


@pytest.mark.parametrize("case", sorted(PUBLISHED))
def test_case_yaml_holds_the_published_full_size_built_on_meta(case: str) -> None:
    from chipperf_runtime.training.llmtrain import arch

    full, published, seq = PUBLISHED[case]
    presets = spec(case).presets
    built = {size: sum(p.numel() for p in built_on_meta(case, size).parameters())
             for size in presets}
    assert built[full] == published
    meta = yaml.safe_load((BENCHMARKS / case / "pytorch" / "case.yaml").read_text())
    assert meta["full_size"] == {"params": published,
                                 "flops_per_unit": arch.train_flops_per_token(presets[full], seq)}
    assert meta["memory"]["params"] == built
    assert all(arch.parameter_count(presets[s]) == n for s, n in built.items())


def test_chatglm3_is_glm_with_two_kv_groups_half_rotary_and_qkv_biases() -> None:
    model = built_on_meta("chatglm3_6b", "6b")
    attention = model.model.layers[0].self_attn
    assert attention.k_proj.weight.shape == (256, 4096) and attention.k_proj.bias is not None
    assert attention.q_proj.bias is not None and attention.o_proj.bias is None
    assert model.config.partial_rotary_factor == 0.5 and model.config.num_key_value_heads == 2


def test_chatglm3_refuses_tensor_parallelism_naming_why() -> None:
    from types import SimpleNamespace

    from chipperf_runtime.training.driver import Config, ConfigError
    from chipperf_runtime.training.llmtrain import case as llm

    values = {"model_size": "tiny", "target_eval_loss": {"tiny": 3.4}, "dtype": "fp32",
              "seq_len": 32, "global_batch_size": 8, "micro_batch_size": 2, "max_steps": 4,
              "eval_every_steps": 4, "tensor_parallel": 2}
    dist = SimpleNamespace(world_size=2, nproc_per_node=2)
    with pytest.raises(ConfigError, match=r"tensor_parallel = 2: this case runs tensor_parallel "
                                          r"1 only \(GLM's fused gate_up_proj"):
        llm.model_config(Config(values, {}), spec("chatglm3_6b"), dist)  # type: ignore[arg-type]


def test_baichuan2_s_40_alibi_slopes_interleave_the_32_and_64_head_ones() -> None:
    from chipperf_runtime.training.llmtrain import alibi

    slopes = alibi.alibi_slopes(40).tolist()
    expected = [2 ** (-(i + 1) / 4) for i in range(32)] + [2 ** (-(2 * k + 1) / 8) for k in range(8)]
    assert slopes == pytest.approx(expected, rel=1e-6)
    assert alibi.alibi_slopes(8).tolist() == pytest.approx([2.0 ** -(i + 1) for i in range(8)])
    # tensor parallel 2: rank 1 holds heads 20..39, so their slopes
    assert alibi.local_slopes(40, 20, 1).tolist() == pytest.approx(expected[20:], rel=1e-6)


def test_alibi_attention_is_the_reference_computation() -> None:
    import torch

    from chipperf_runtime.training.llmtrain import alibi

    torch.manual_seed(0)
    q, k, v = (torch.randn(2, 6, 5, 8) for _ in range(3))
    module = torch.nn.Module().eval()       # no config: the 6 heads are all the model's
    out, _ = alibi.alibi_attention(module, q, k, v, None, scaling=1 / math.sqrt(8))
    positions = torch.arange(5)
    bias = alibi.alibi_slopes(6)[:, None, None] * (positions[None, :] - positions[:, None])
    scores = q @ k.transpose(-1, -2) / math.sqrt(8) + bias
    scores = scores.masked_fill(positions[None, :] > positions[:, None], float("-inf"))
    reference = (scores.softmax(-1) @ v).transpose(1, 2)
    assert torch.allclose(out, reference, atol=1e-6)


def test_baichuan2_has_no_rotary_and_a_normalised_head() -> None:
    import torch

    from chipperf_runtime.training.llmtrain import alibi

    s = spec("baichuan2_13b")
    model = s.adapt(s.model_class(s.config_class(**s.presets["tiny"],
                                                 attn_implementation=s.attention)))
    cos, sin = model.model.rotary_emb(torch.zeros(1, 3, 144), torch.arange(3)[None])
    assert bool((cos == 1).all()) and bool((sin == 0).all())
    head = model.lm_head
    assert isinstance(head, alibi.NormHead)
    x = torch.randn(3, 144)
    rows = head.weight / head.weight.norm(dim=-1, keepdim=True)
    assert torch.allclose(head(x), x @ rows.T, atol=1e-5)


def test_flagperf_s_one_npy_file_is_read_with_a_held_out_tail(tmp_path: Path) -> None:
    from chipperf_runtime.training.driver import DataError
    from chipperf_runtime.training.textlm import tokens

    np.save(tmp_path / "openwebtext_chatglm3_100M.npy", np.arange(2001, dtype=np.int32) % 250)
    data = tokens.flagperf_npy("openwebtext_chatglm3_100M.npy")(tmp_path, 100, 259, "p.py")
    assert (len(data.train), len(data.eval)) == (19, 1)     # 20 windows, the last 1/20 held out
    assert data.eval.take(np.array([0]))[0][0] == 1900 % 250
    np.save(tmp_path / "openwebtext_chatglm3_100M.npy", np.arange(150, dtype=np.int32))
    with pytest.raises(DataError, match="holds 150 tokens: fewer than two windows"):
        tokens.flagperf_npy("openwebtext_chatglm3_100M.npy")(tmp_path, 100, 259, "p.py")


def test_every_shipped_config_plans() -> None:
    found = shipped_config_problems(PUBLISHED)
    assert all(problems == [] for problems in found.values()), found
    assert len(found) == 14      # 3 cpu + 4 nvidia (A100, H100 at 1 x 8 and 2 x 8) configs per case
