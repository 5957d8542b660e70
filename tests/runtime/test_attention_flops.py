"""The attention part the training cases put in FINISHED (``attention_flops_per_unit``,
``causal_attention``; docs/results.md "MFU with causal attention halved") equals its formula:
llmtrain's 12 x layers x heads x head_dim x seq_len per token (causal), the transformers
cases' FLOP-counter batched products, 4 x layers x width x seq_len^2 forward per sequence,
x 3 per unit (gpt2 causal, bert not)."""

from __future__ import annotations

from types import SimpleNamespace

from casemodules import load_case_module

SEQ = 128


def test_llmtrain_s_attention_part_is_its_term_of_the_flops_and_causal() -> None:
    from chipperf_runtime.training.llmtrain import arch
    from chipperf_runtime.training.llmtrain.case import attention_per_token

    values = load_case_module("llama3_8B/pytorch", "run_pretraining",
                              "attention_llama3").SPEC.presets["8b"]
    attention = attention_per_token(SimpleNamespace(seq_len=8192), values)  # type: ignore[arg-type]
    assert attention.causal is True
    assert attention.flops_per_unit == 12 * 32 * (32 * 128) * 8192
    assert arch.train_flops_per_token(values, 8192) - attention.flops_per_unit == \
        6 * arch.matmul_params(values)
    lora = arch.lora_train_flops_per_token(values, 8192, 16, ["q_proj", "v_proj"])
    assert lora - attention.flops_per_unit == \
        4 * arch.matmul_params(values) + 6 * arch.lora_params(values, 16, ["q_proj", "v_proj"])


def test_gpt2_s_counted_attention_is_the_formula_and_causal() -> None:
    from chipperf_runtime.training.hftext.case import attention_per_unit
    from chipperf_runtime.training.hftext.models import forward_count

    model = load_case_module("gpt2/pytorch", "run_pretraining", "attention_gpt2").TEXT_MODEL
    tiny = model.presets["tiny"]
    counted = forward_count(model, tiny, SEQ)
    layers, width = tiny["n_layer"], tiny["n_embd"]
    assert counted.attention == 4 * layers * width * SEQ**2
    attention = attention_per_unit(model.task, counted, SEQ)
    # per token, like flops_per_unit: 3 x forward / seq_len
    assert attention.flops_per_unit == 12 * layers * width * SEQ
    assert attention.causal is True
    assert attention.flops_per_unit < model.task.train_flops(counted.total, SEQ)


def test_bert_s_counted_attention_is_not_causal() -> None:
    from chipperf_runtime.training.hftext.case import attention_per_unit
    from chipperf_runtime.training.hftext.models import forward_count

    module = load_case_module("bert/pytorch", "run_pretraining", "attention_bert")
    model = module.TEXT_MODEL
    preset = {"vocab_size": 512, "hidden_size": 64, "num_hidden_layers": 2,
              "num_attention_heads": 2, "intermediate_size": 128, "max_position_embeddings": SEQ}
    counted = forward_count(model, preset, SEQ)
    assert counted.attention == 4 * 2 * 64 * SEQ**2
    attention = attention_per_unit(model.task, counted, SEQ)
    assert attention.flops_per_unit == 12 * 2 * 64 * SEQ**2          # per sequence
    assert attention.causal is False
