"""llama2_7b / DeepSpeed: the case builds transformers' LlamaForCausalLM from a LlamaConfig of
Llama-2-7B's published shape; its parameter count and training FLOPs per token (llmtrain.arch)
are checked against the built model. The token windows it trains on (textlm.tokens) are
tested in test_textlm_shards.py."""

from __future__ import annotations

from types import SimpleNamespace

import torch
from casemodules import load_case_module
from transformers import LlamaConfig, LlamaForCausalLM

from chipperf_runtime.training.llmtrain import arch

llama_train = load_case_module("llama2_7b/deepspeed", "llama_train")  # before: the case imports it
case = load_case_module("llama2_7b/deepspeed", "run_pretraining", "llama2_run_pretraining")

SEVEN_B = case.PRESETS["7b"]


def meta_llama(values=SEVEN_B) -> LlamaForCausalLM:
    with torch.device("meta"):
        return LlamaForCausalLM(LlamaConfig(**values))


def tiny(seed: int = 0, checkpointing: bool = False) -> torch.nn.Module:
    cfg = SimpleNamespace(seed=seed, zero_stage=2, activation_checkpointing=checkpointing)
    return case.build_model(cfg, dict(case.PRESETS["tiny"]), {}, torch.device("cpu"))


def linear_weights(net: torch.nn.Module) -> int:
    return sum(m.weight.numel() for m in net.modules() if isinstance(m, torch.nn.Linear))


# ---------------------------------------------------------------- the full size


def test_7b_preset_is_the_published_llama_2_7b() -> None:
    built = LlamaConfig(**SEVEN_B)
    assert (built.num_hidden_layers, built.hidden_size, built.num_attention_heads,
            built.num_key_value_heads, built.intermediate_size, built.vocab_size,
            built.max_position_embeddings, built.rms_norm_eps, built.rope_parameters["rope_theta"],
            built.hidden_act, built.tie_word_embeddings) == \
        (32, 4096, 32, 32, 11008, 32000, 4096, 1e-5, 10000.0, "silu", False)


def test_llama_2_7b_has_its_published_parameter_count() -> None:
    net = meta_llama()
    assert sum(p.numel() for p in net.parameters()) == arch.parameter_count(SEVEN_B) == \
        6_738_415_616
    assert net.lm_head.weight is not net.model.embed_tokens.weight  # untied
    assert not any(isinstance(m, torch.nn.Linear) and m.bias is not None for m in net.modules())


def test_matmul_params_are_every_linear_weight() -> None:
    # all parameters less the input embedding and the 65 RMSNorm weight vectors
    assert arch.matmul_params(SEVEN_B) == linear_weights(meta_llama()) == \
        6_738_415_616 - 32000 * 4096 - 65 * 4096 == 6_607_077_376


def test_train_flops_per_token_is_6n_plus_the_attention_term() -> None:
    assert arch.train_flops_per_token(SEVEN_B, 4096) == \
        6 * 6_607_077_376 + 12 * 32 * 4096 * 4096 == 46_084_915_200


# ---------------------------------------------------------------- the case's model


def test_tiny_model_is_seeded_and_counted_like_its_config() -> None:
    a, b = tiny(seed=3), tiny(seed=3)
    assert type(a).__name__ == "LlamaForCausalLM" and not a.config.use_cache
    assert a.config._attn_implementation == "sdpa"
    assert sum(p.numel() for p in a.parameters()) == arch.parameter_count(case.PRESETS["tiny"]) \
        == 468_352
    assert linear_weights(a) == arch.matmul_params(case.PRESETS["tiny"])
    for (name, p), q in zip(a.named_parameters(), b.parameters()):
        assert torch.equal(p, q), name
    assert not torch.equal(a.lm_head.weight, tiny(seed=4).lm_head.weight)


def test_causal_a_token_never_sees_later_tokens() -> None:
    net = tiny().eval()
    ids = torch.randint(0, 259, (1, 12), generator=torch.Generator().manual_seed(0))
    changed = ids.clone()
    changed[0, 8:] = (changed[0, 8:] + 1) % 259
    a, b = llama_train.logits(net, ids), llama_train.logits(net, changed)
    torch.testing.assert_close(a[:, :8], b[:, :8])
    assert not torch.allclose(a[:, 8:], b[:, 8:])


def test_activation_checkpointing_gives_the_same_gradients() -> None:
    ids = torch.randint(0, 259, (2, 10), generator=torch.Generator().manual_seed(1))
    grads = []
    for checkpointing in (False, True):
        net = tiny(checkpointing=checkpointing).train()
        assert net.is_gradient_checkpointing == checkpointing
        llama_train.causal_lm_loss(llama_train.logits(net, ids[:, :-1]), ids[:, 1:]).backward()
        grads.append(net.model.layers[0].mlp.up_proj.weight.grad)
    torch.testing.assert_close(grads[0], grads[1])
