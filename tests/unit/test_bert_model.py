"""bert / PyTorch: BERT-large built in PyTorch has the published size and the weights the shared
parameter and FLOPs formulas (textlm.bert) count; the tokenizer. The formulas themselves are
tested in test_textlm.py, the data reader in test_textlm_shards.py."""

from __future__ import annotations

import dataclasses

import torch
from casemodules import load_case_module
from textlm import bert  # importable once casemodules is imported

bert_model = load_case_module("bert/pytorch", "bert_model")
bert_tokenizer = load_case_module("bert/pytorch", "bert_tokenizer")

LARGE = bert.PRESETS["large"]


def meta_bert(cfg=LARGE):
    with torch.device("meta"):
        return bert_model.BertForMaskedLM(cfg)


# ---------------------------------------------------------------- model


def test_large_preset_is_the_published_bert_large() -> None:
    assert (LARGE.num_layers, LARGE.hidden_size, LARGE.num_heads, LARGE.intermediate_size,
            LARGE.vocab_size, LARGE.max_position_embeddings, LARGE.type_vocab_size) == \
        (24, 1024, 16, 4096, 30522, 512, 2)


def test_bert_large_mlm_has_hugging_faces_parameter_count() -> None:
    # HF BertForMaskedLM(bert-large-uncased): 335,174,458 (decoder tied to word embeddings)
    net = meta_bert()
    assert bert_model.count_parameters(net) == 335_174_458
    assert all(p.device.type == "meta" for p in net.parameters())


def test_decoder_is_tied_to_the_word_embeddings() -> None:
    net = meta_bert()
    assert net.mlm.word_embeddings.weight is net.embeddings.word.weight
    untied = sum(p.numel() for _, p in net.named_parameters(remove_duplicate=False))
    assert untied - bert_model.count_parameters(net) == 30522 * 1024


def test_matmul_params_are_the_linear_weights_plus_the_tied_decoder() -> None:
    net = meta_bert()
    linear = sum(m.weight.numel() for m in net.modules() if isinstance(m, torch.nn.Linear))
    assert bert.matmul_params(LARGE) == linear + net.embeddings.word.weight.numel()


def test_parameter_formula_counts_the_built_model() -> None:
    for size in ("large", "tiny"):
        with torch.device("meta"):
            net = bert_model.BertForMaskedLM(bert.PRESETS[size])
        assert bert_model.count_parameters(net) == bert.parameter_count(bert.PRESETS[size])


def test_tiny_forward_shapes_and_loss() -> None:
    cfg = bert.PRESETS["tiny"]
    torch.manual_seed(0)
    net = bert_model.BertForMaskedLM(cfg)
    ids = torch.randint(5, cfg.vocab_size, (2, 16))
    mask = torch.ones_like(ids)
    mask[1, 10:] = 0
    logits = net(ids, torch.zeros_like(ids), mask)
    assert logits.shape == (2, 16, cfg.vocab_size)
    labels = torch.full_like(ids, -100)
    labels[0, 3] = ids[0, 3]
    loss = bert_model.mlm_loss(logits, labels)
    assert torch.isfinite(loss) and loss.item() > 0
    assert bert_model.mlm_correct(logits, labels)[1] == 1


def test_padding_does_not_change_real_token_outputs() -> None:
    cfg = dataclasses.replace(bert.PRESETS["tiny"], hidden_dropout=0.0,
                              attention_dropout=0.0)
    torch.manual_seed(0)
    net = bert_model.BertForMaskedLM(cfg).eval()
    ids = torch.randint(5, cfg.vocab_size, (1, 8))
    padded = torch.cat([ids, torch.zeros(1, 4, dtype=torch.long)], dim=1)
    short = net(ids, torch.zeros_like(ids), torch.ones_like(ids))
    mask = torch.cat([torch.ones(1, 8), torch.zeros(1, 4)], dim=1).long()
    long = net(padded, torch.zeros_like(padded), mask)
    torch.testing.assert_close(short, long[:, :8], atol=1e-5, rtol=1e-5)


# ---------------------------------------------------------------- tokenizer


def test_basic_tokens_lower_strip_accents_and_split_punctuation() -> None:
    assert bert_tokenizer.basic_tokens("Héllo, World!  x=1") == \
        ["hello", ",", "world", "!", "x", "=", "1"]


def test_wordpiece_is_greedy_longest_match_first() -> None:
    vocab = {t: i for i, t in enumerate(["[UNK]", "un", "##aff", "##able", "##a", "aff"])}
    assert bert_tokenizer.wordpiece("unaffable", vocab) == ["un", "##aff", "##able"]
    assert bert_tokenizer.wordpiece("zzz", vocab) == ["[UNK]"]


def test_built_vocabulary_covers_its_corpus_without_unknowns() -> None:
    texts = ["The quick brown fox jumps over the lazy dog.", "Foxes jumped; dogs slept."]
    tokens = bert_tokenizer.build_vocab(texts, 80)
    assert tokens[:5] == list(bert_tokenizer.SPECIALS) and len(tokens) <= 80
    assert tokens == bert_tokenizer.build_vocab(texts, 80)  # deterministic
    vocab = {t: i for i, t in enumerate(tokens)}
    ids = bert_tokenizer.tokenize(" ".join(texts), vocab)
    assert vocab["[UNK]"] not in ids
