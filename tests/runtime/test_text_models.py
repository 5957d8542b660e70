"""The transformers-built text cases: case.yaml's full-size numbers are the built model's
(parameters, training FLOPs per sample or token counted on the meta device), the published
parameter counts hold, and the FLOP counter agrees with BERT's analytic formula; t5_small's
pieces: ROUGE-1, the decoder's inputs, reading a checkpoint."""

from __future__ import annotations

from types import ModuleType

import pytest
import yaml
from casemodules import BENCHMARKS, load_case_module

# published sizes: Hugging Face's gpt2-medium, distilbert-base-uncased, t5-small and
# bert-large-uncased (bert_hf) and allenai/longformer-base-4096 (heads tied); t5-3b's "2.85 B"
# (T5Config d_model 1024, d_ff 16384, 24 + 24 layers, 32 heads of 128, vocab 32128) to the unit
PUBLISHED_PARAMS = {"gpt2": 354_823_168, "distilbert": 66_985_530, "t5_small": 60_506_624,
                    "bert_hf": 335_174_458, "longformer": 148_711_257, "t5_3b": 2_851_598_336}
# published in millions only: CPM-1 Medium, the CPM paper's (arXiv 2012.00413) Table 1
PUBLISHED_MILLIONS = {"cpm": 334}


def entry(case: str) -> ModuleType:
    return load_case_module(f"{case}/pytorch", "run_pretraining", f"text_models_{case}")


@pytest.mark.parametrize("case", sorted(PUBLISHED_PARAMS.keys() | PUBLISHED_MILLIONS.keys()))
def test_case_yaml_holds_the_full_size_model_built_on_meta(case: str) -> None:
    import torch

    from chipperf_runtime.training.hftext.models import count_forward_flops, hf_model

    module = entry(case)
    full, model = module.FULL_SIZE, module.TEXT_MODEL
    with torch.device("meta"):
        net = hf_model(model.arch, module.PRESETS[full["model_size"]])
    params = sum(p.numel() for p in net.parameters())
    forward = count_forward_flops(net, model.task, full["seq_len"])
    meta = yaml.safe_load((BENCHMARKS / case / "pytorch" / "case.yaml").read_text())
    assert meta["work_unit"] == model.task.work_unit
    assert meta["full_size"] == {"params": params,
                                 "flops_per_unit": model.task.train_flops(forward, full["seq_len"])}
    if case in PUBLISHED_MILLIONS:
        assert round(params / 1e6) == PUBLISHED_MILLIONS[case]
    else:
        assert params == PUBLISHED_PARAMS[case]


def t5_params(preset: dict) -> int:
    """T5's parameters from its config: the shared embedding (the LM head tied to it); per
    encoder block self-attention (q, k, v, o: d_model x heads * d_kv each), the ReLU FFN (wi,
    wo) and two norm weights; per decoder block a cross-attention and a third norm more; each
    stack's relative-position bias (buckets x heads, in its first block) and final norm."""
    d, inner = preset["d_model"], preset["num_heads"] * preset["d_kv"]
    ffn = 2 * d * preset["d_ff"]
    encoder = preset["num_layers"] * (4 * d * inner + ffn + 2 * d)
    decoder = preset["num_decoder_layers"] * (8 * d * inner + ffn + 3 * d)
    stacks = 2 * (preset["relative_attention_num_buckets"] * preset["num_heads"] + d)
    return preset["vocab_size"] * d + encoder + decoder + stacks


@pytest.mark.parametrize("case,size", [("t5_small", "small"), ("t5_3b", "3b")])
def test_t5_full_size_parameters_by_arithmetic(case: str, size: str) -> None:
    """The published counts (which the meta-device build above matches) from the presets'
    numbers alone: t5-3b 32,899,072 embedding + 24 x 50,333,696 encoder + 24 x 67,111,936
    decoder + 4,096 bias and norms = 2,851,598,336."""
    preset = entry(case).PRESETS[size]
    assert t5_params(preset) == PUBLISHED_PARAMS[case]


def test_flop_counter_matches_berts_analytic_formula() -> None:
    """transformers' BERT-large counted on meta: 6*N*s + 12*L*h*s^2 per 512-token sequence,
    the formula the bert cases report (textlm.bert)."""
    import torch

    from chipperf_runtime.training.hftext.models import count_forward, hf_model
    from chipperf_runtime.training.hftext.tasks import MaskedLM
    from chipperf_runtime.training.textlm.bert import (
        PRESETS,
        attention_train_flops_per_sequence,
        train_flops_per_sequence,
    )

    with torch.device("meta"):
        net = hf_model("bert", {"hidden_size": 1024, "num_hidden_layers": 24,
                                "num_attention_heads": 16, "intermediate_size": 4096})
    counted = count_forward(net, MaskedLM(token_types=True), 512)
    assert 3 * counted.total == train_flops_per_sequence(PRESETS["large"], 512) == 1_104_257_482_752
    # the attention part bert/paddle reports is the counter's batched products (FINISHED's pair)
    assert 3 * counted.attention == attention_train_flops_per_sequence(PRESETS["large"], 512) \
        == 12 * 24 * 1024 * 512**2


def test_longformer_counted_on_meta_is_what_a_real_forward_multiplies() -> None:
    """Longformer reads scalars of its input; on meta they read as 0 (hftext.models.MetaScalars):
    the tiny preset's meta count equals its count on real CPU tensors."""
    import torch

    from chipperf_runtime.training.hftext.models import count_forward_flops, hf_model

    module = entry("longformer")
    preset, task = module.PRESETS["tiny"], module.TEXT_MODEL.task
    with torch.device("meta"):
        on_meta = count_forward_flops(hf_model("longformer", preset), task, 64)
    assert on_meta == count_forward_flops(hf_model("longformer", preset), task, 64) > 0


def test_an_unknown_model_size_is_refused_with_the_choices() -> None:
    from chipperf_runtime.training.driver import ConfigError
    from chipperf_runtime.training.hftext.models import preset_of

    class Cfg:
        model_size = "huge"

    with pytest.raises(ConfigError, match=r"model_size 'huge' is unknown: use one of \['medium', 'tiny'\]"):
        preset_of(Cfg(), entry("gpt2").PRESETS)  # type: ignore[arg-type]


def test_span_corruption_replaces_each_span_by_one_sentinel() -> None:
    import numpy as np

    from chipperf_runtime.training.hftext import spans

    rng = np.random.default_rng(0)
    tokens = np.arange(10, 50)
    mask = spans.noise_mask(len(tokens), 0.15, 3.0, rng)
    assert mask.sum() == 6 and not mask[0]
    source, target = spans.corrupt(tokens, mask, first_sentinel=1000, end=3)
    starts = int((mask & ~np.concatenate([[False], mask[:-1]])).sum())
    assert [t for t in source if t < 1000] == tokens[~mask].tolist()
    assert [t for t in target[:-1] if t < 1000] == tokens[mask].tolist() and target[-1] == 3
    assert [t for t in source if t >= 1000] == [t for t in target if t >= 1000] == \
        list(range(1000, 1000 + starts))
    assert len(target) <= spans.target_length(len(tokens), 0.15, 3.0)


def test_rouge1_is_the_f_measure_of_clipped_unigram_overlap() -> None:
    from chipperf_runtime.training.hftext.rouge import rouge1, rouge1_sum, words

    assert words("The cat, the HAT!") == ["the", "cat", "the", "hat"]
    assert rouge1("the cat sat", "the cat ran") == pytest.approx(2 / 3)
    # "the" twice in the prediction, once in the reference: one match; P = 2/4, R = 2/3
    assert rouge1("the the cat dog", "the cat ran") == pytest.approx(2 * (1 / 2) * (2 / 3) / (1 / 2 + 2 / 3))
    assert rouge1("", "a b") == rouge1("x y", "a b") == 0.0
    assert rouge1_sum([("a b", "a b"), ("a", "b")]) == (100.0, 2)


def test_t5_decoder_inputs_are_the_labels_shifted_right() -> None:
    import numpy as np

    from chipperf_runtime.training.hftext.seq2seq import shift_right

    labels = np.array([[5, 6, 1, -100], [7, 1, -100, -100]])
    assert shift_right(labels).tolist() == [[0, 5, 6, 1], [0, 7, 1, 0]]


def test_a_checkpoint_is_read_into_the_network_and_a_misfit_is_refused(tmp_path) -> None:
    import torch
    from safetensors.torch import save_file

    from chipperf_runtime.training.driver import DataError
    from chipperf_runtime.training.hftext.models import hf_model
    from chipperf_runtime.training.hftext.seq2seq import TIED, load_checkpoint

    preset = entry("t5_small").PRESETS["tiny"]
    torch.manual_seed(1)
    source = hf_model("t5", preset)
    save_file({k: v.contiguous() for k, v in source.state_dict().items() if k not in TIED},
              str(tmp_path / "model.safetensors"))
    torch.manual_seed(2)
    target = hf_model("t5", preset)
    load_checkpoint(target, tmp_path / "model.safetensors")
    assert all(torch.equal(a, b) for a, b in zip(source.state_dict().values(),
                                                 target.state_dict().values()))
    assert torch.equal(target.lm_head.weight, source.shared.weight)
    wider = hf_model("t5", {**preset, "vocab_size": 256})
    with pytest.raises(DataError, match="model.safetensors does not fit the model_size's network"):
        load_checkpoint(wider, tmp_path / "model.safetensors")
