"""llama2_7b / DeepSpeed: Llama-2-7B's published size, FLOPs formula, RoPE, causality. The token
windows it trains on (textlm.tokens) are tested in test_textlm_shards.py."""

from __future__ import annotations

import dataclasses

import pytest
import torch
from casemodules import load_case_module

llama_model = load_case_module("llama2_7b/deepspeed", "llama_model")

SEVEN_B = llama_model.PRESETS["7b"]


def meta_llama(cfg=SEVEN_B):
    with torch.device("meta"):
        return llama_model.LlamaForCausalLM(cfg)


# ---------------------------------------------------------------- model


def test_7b_preset_is_the_published_llama_2_7b() -> None:
    assert (SEVEN_B.num_layers, SEVEN_B.hidden_size, SEVEN_B.num_heads, SEVEN_B.num_kv_heads,
            SEVEN_B.intermediate_size, SEVEN_B.vocab_size, SEVEN_B.max_seq_len,
            SEVEN_B.rms_norm_eps, SEVEN_B.rope_theta) == \
        (32, 4096, 32, 32, 11008, 32000, 4096, 1e-5, 10000.0)


def test_llama_2_7b_has_its_published_parameter_count() -> None:
    net = meta_llama()
    assert llama_model.count_parameters(net) == 6_738_415_616
    assert all(p.device.type == "meta" for p in net.parameters())
    assert net.lm_head.weight is not net.embed_tokens.weight  # untied
    assert not any(isinstance(m, torch.nn.Linear) and m.bias is not None for m in net.modules())


def test_matmul_params_are_every_linear_weight() -> None:
    net = meta_llama()
    linear = sum(m.weight.numel() for m in net.modules() if isinstance(m, torch.nn.Linear))
    # all parameters less the input embedding and the 65 RMSNorm weight vectors
    assert llama_model.matmul_params(SEVEN_B) == linear == \
        6_738_415_616 - 32000 * 4096 - 65 * 4096 == 6_607_077_376


def test_train_flops_per_token_is_6n_plus_the_attention_term() -> None:
    assert llama_model.train_flops_per_token(SEVEN_B, 4096) == \
        6 * 6_607_077_376 + 12 * 32 * 4096 * 4096 == 46_084_915_200


def test_grouped_query_attention_shapes_count() -> None:
    cfg = dataclasses.replace(llama_model.PRESETS["tiny"], num_kv_heads=2)
    net = llama_model.LlamaForCausalLM(cfg)
    linear = sum(m.weight.numel() for m in net.modules() if isinstance(m, torch.nn.Linear))
    assert llama_model.matmul_params(cfg) == linear
    assert net(torch.randint(0, cfg.vocab_size, (2, 8))).shape == (2, 8, cfg.vocab_size)


def test_rope_makes_scores_depend_on_relative_position_only() -> None:
    cfg = SEVEN_B
    cos, sin = llama_model.rope_tables(cfg, 64, torch.device("cpu"))
    torch.manual_seed(0)
    q, k = torch.randn(cfg.head_dim), torch.randn(cfg.head_dim)

    def score(i: int, j: int) -> float:
        return float(llama_model.apply_rope(q, cos[i], sin[i]) @
                     llama_model.apply_rope(k, cos[j], sin[j]))
    assert score(5, 2) == pytest.approx(score(40, 37), rel=1e-4)
    assert score(5, 2) != pytest.approx(score(5, 4), rel=1e-3)
    assert torch.allclose(llama_model.apply_rope(q, cos[0], sin[0]), q)


def test_rms_norm() -> None:
    norm = llama_model.RMSNorm(4, 1e-5)
    x = torch.tensor([[1.0, 2.0, 3.0, 4.0]])
    expected = x / torch.sqrt((x**2).mean() + 1e-5)
    torch.testing.assert_close(norm(x), expected)


def test_causal_a_token_never_sees_later_tokens() -> None:
    cfg = llama_model.PRESETS["tiny"]
    torch.manual_seed(0)
    net = llama_model.LlamaForCausalLM(cfg).eval()
    ids = torch.randint(0, cfg.vocab_size, (1, 12))
    changed = ids.clone()
    changed[0, 8:] = (changed[0, 8:] + 1) % cfg.vocab_size
    a, b = net(ids), net(changed)
    torch.testing.assert_close(a[:, :8], b[:, :8])
    assert not torch.allclose(a[:, 8:], b[:, 8:])


def test_activation_checkpointing_gives_the_same_gradients() -> None:
    cfg = llama_model.PRESETS["tiny"]
    ids = torch.randint(0, cfg.vocab_size, (2, 10))
    grads = []
    for ckpt in (False, True):
        torch.manual_seed(0)
        net = llama_model.LlamaForCausalLM(cfg, activation_checkpointing=ckpt)
        llama_model.causal_lm_loss(net(ids[:, :-1]), ids[:, 1:]).backward()
        grads.append(net.layers[0].mlp.up_proj.weight.grad)
    torch.testing.assert_close(grads[0], grads[1])
