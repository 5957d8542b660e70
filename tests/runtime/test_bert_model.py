"""bert / PyTorch: transformers' BertForMaskedLM built from the shared presets has the published
size, and the shared parameter and FLOPs formulas (textlm.bert) count it exactly. The tokenizer
(chipperf_runtime.wordpiece) is tested in test_wordpiece.py.
The formulas themselves are tested in test_textlm.py, the data reader in test_textlm_shards.py."""

from __future__ import annotations

import torch
from casemodules import load_case_module

from chipperf_runtime.training.hftext.models import count_forward_flops, hf_model
from chipperf_runtime.training.hftext.train import token_correct, token_loss
from chipperf_runtime.training.textlm import bert  # importable once casemodules is imported

entry = load_case_module("bert/pytorch", "run_pretraining", "bert_pytorch_entry")

LARGE = bert.PRESETS["large"]


def meta_bert(size: str = "large") -> torch.nn.Module:
    with torch.device("meta"):
        return hf_model("bert", entry.PRESETS[size])


def params(net: torch.nn.Module) -> int:
    return sum(p.numel() for p in net.parameters())   # the tied decoder weight counts once


# ---------------------------------------------------------------- model


def test_large_preset_is_the_published_bert_large() -> None:
    assert (LARGE.num_layers, LARGE.hidden_size, LARGE.num_heads, LARGE.intermediate_size,
            LARGE.vocab_size, LARGE.max_position_embeddings, LARGE.type_vocab_size) == \
        (24, 1024, 16, 4096, 30522, 512, 2)
    config = meta_bert().config
    assert (config.num_hidden_layers, config.hidden_size, config.hidden_act,
            config.layer_norm_eps) == (24, 1024, "gelu", 1e-12)


def test_bert_large_mlm_has_the_published_parameter_count() -> None:
    # bert-large-uncased's BertForMaskedLM: 335,174,458 (decoder tied to word embeddings)
    net = meta_bert()
    assert params(net) == 335_174_458
    assert all(p.device.type == "meta" for p in net.parameters())


def test_decoder_is_tied_to_the_word_embeddings() -> None:
    net = meta_bert()
    assert net.cls.predictions.decoder.weight is net.bert.embeddings.word_embeddings.weight
    untied = sum(p.numel() for _, p in net.named_parameters(remove_duplicate=False))
    # the decoder weight (the word embeddings) and its bias (the head's bias) each appear twice
    assert untied - params(net) == 30522 * 1024 + 30522


def test_matmul_params_are_the_linear_weights_with_the_tied_decoder() -> None:
    net = meta_bert()
    linear = sum(m.weight.numel() for m in net.modules() if isinstance(m, torch.nn.Linear))
    assert bert.matmul_params(LARGE) == linear


def test_formulas_count_the_built_model() -> None:
    """parameter_count and train_flops_per_sequence (what bert/paddle reports) equal the built
    transformers model's parameters and 3 x its counted forward FLOPs."""
    task = entry.TEXT_MODEL.task
    for size, seq_len in (("large", 512), ("tiny", 64)):
        net = meta_bert(size)
        assert params(net) == bert.parameter_count(bert.PRESETS[size])
        assert 3 * count_forward_flops(net, task, seq_len) == \
            bert.train_flops_per_sequence(bert.PRESETS[size], seq_len)


def test_tiny_forward_shapes_and_loss() -> None:
    torch.manual_seed(0)
    net = hf_model("bert", entry.PRESETS["tiny"])
    vocab = bert.PRESETS["tiny"].vocab_size
    ids = torch.randint(5, vocab, (2, 16))
    mask = torch.ones_like(ids)
    mask[1, 10:] = 0
    logits = net(input_ids=ids, token_type_ids=torch.zeros_like(ids), attention_mask=mask).logits
    assert logits.shape == (2, 16, vocab)
    labels = torch.full_like(ids, -100)
    labels[0, 3] = ids[0, 3]
    loss = token_loss(logits, labels)
    assert torch.isfinite(loss) and loss.item() > 0
    assert int(token_correct(logits, labels)[1]) == 1


def test_padding_does_not_change_real_token_outputs() -> None:
    torch.manual_seed(0)
    net = hf_model("bert", entry.PRESETS["tiny"]).eval()
    ids = torch.randint(5, bert.PRESETS["tiny"].vocab_size, (1, 8))
    padded = torch.cat([ids, torch.zeros(1, 4, dtype=torch.long)], dim=1)
    short = net(input_ids=ids, attention_mask=torch.ones_like(ids)).logits
    mask = torch.cat([torch.ones(1, 8), torch.zeros(1, 4)], dim=1).long()
    long = net(input_ids=padded, attention_mask=mask).logits
    torch.testing.assert_close(short, long[:, :8], atol=1e-5, rtol=1e-5)
