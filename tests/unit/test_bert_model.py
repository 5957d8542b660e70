"""bert / PyTorch: BERT-large's published size, the FLOPs formula, tokenizer, data and masking."""

from __future__ import annotations

import dataclasses
import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest
import torch

REPO = Path(__file__).resolve().parents[2]
CASE = REPO / "training" / "benchmarks" / "bert" / "pytorch"
for path in (REPO / "training" / "benchmarks", REPO):
    if str(path) not in sys.path:
        sys.path.insert(0, str(path))


def load(name: str):
    """The case's module by path; registered under its own name because the case's modules
    import each other by name (bert_* names are unique across cases)."""
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, CASE / f"{name}.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


bert_model = load("bert_model")
bert_tokenizer = load("bert_tokenizer")
bert_data = load("bert_data")
from driver.errors import DataError  # noqa: E402

LARGE = bert_model.PRESETS["large"]


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
    assert bert_model.matmul_params(LARGE) == linear + net.embeddings.word.weight.numel()


def test_train_flops_per_sequence_formula() -> None:
    n = bert_model.matmul_params(LARGE)
    assert n == 24 * (4 * 1024**2 + 2 * 1024 * 4096) + 1024**2 + 1024 * 30522
    assert bert_model.train_flops_per_sequence(LARGE, 512) == \
        6 * n * 512 + 12 * 24 * 1024 * 512**2 == 1_104_257_482_752


def test_tiny_forward_shapes_and_loss() -> None:
    cfg = bert_model.PRESETS["tiny"]
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
    cfg = dataclasses.replace(bert_model.PRESETS["tiny"], hidden_dropout=0.0,
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


# ---------------------------------------------------------------- data


def write_dataset(root: Path, rows: int = 40, seq_len: int = 16, vocab_size: int = 50) -> Path:
    tokens = list(bert_tokenizer.SPECIALS) + [f"w{i}" for i in range(vocab_size - 5)]
    (root / "vocab.txt").write_text("\n".join(tokens) + "\n")
    rng = np.random.default_rng(0)
    for split, n in (("train", rows), ("eval", rows // 2)):
        body = rng.integers(5, vocab_size, size=(n, seq_len))
        body[:, 0], body[:, 6], body[:, 11] = 2, 3, 3      # [CLS] A [SEP] B [SEP]
        body[:, 12:] = 0                                   # [PAD]
        (root / split).mkdir(parents=True, exist_ok=True)
        np.save(root / split / "shard_00000.npy", body.astype(np.uint16))
    return root


def test_opens_a_valid_dataset(tmp_path: Path) -> None:
    data = bert_data.open_dataset(write_dataset(tmp_path), 30522, 512)
    assert (len(data.train), len(data.eval), data.seq_len) == (40, 20, 16)


@pytest.mark.parametrize("breakage, message", [
    (lambda root: (root / "vocab.txt").unlink(), "vocab.txt is missing"),
    (lambda root: (root / "vocab.txt").write_text("a\nb\n"), "lacks the special tokens"),
    (lambda root: np.save(root / "train" / "shard_00000.npy", np.arange(9)),
     "expected a non-empty 2-D integer array"),
    (lambda root: (root / "eval" / "shard_00000.npy").write_bytes(b"junk"),
     "is not a readable .npy array"),
    (lambda root: np.save(root / "eval" / "shard_00000.npy", np.zeros((3, 8), np.int32)),
     "different sequence lengths"),
    (lambda root: (root / "train" / "shard_00000.npy").unlink(), "has no .npy shards"),
])
def test_malformed_datasets_fail_with_the_reason(tmp_path: Path, breakage, message) -> None:
    root = write_dataset(tmp_path)
    breakage(root)
    with pytest.raises(DataError, match=message):
        bert_data.open_dataset(root, 30522, 512)


def test_missing_data_dir_says_how_to_make_one(tmp_path: Path) -> None:
    with pytest.raises(DataError, match="does not exist.*prepare_data.py"):
        bert_data.open_dataset(tmp_path / "nope", 30522, 512)


def test_vocab_larger_than_the_model_and_too_long_sequences_fail(tmp_path: Path) -> None:
    root = write_dataset(tmp_path)
    with pytest.raises(DataError, match="has 50 tokens but the model's vocab_size is 40"):
        bert_data.open_dataset(root, 40, 512)
    with pytest.raises(DataError, match="sequence length 16 exceeds the model's 8 positions"):
        bert_data.open_dataset(root, 30522, 8)


def test_token_ids_outside_the_vocabulary_fail(tmp_path: Path) -> None:
    root = write_dataset(tmp_path)
    bad = np.load(root / "train" / "shard_00000.npy")
    bad[0, 1] = 60
    np.save(root / "train" / "shard_00000.npy", bad)
    data = bert_data.open_dataset(root, 30522, 512)
    with pytest.raises(DataError, match="token id 60"):
        list(bert_data.train_batches(data, 40, 0, 1, 0, 0))


def test_ranks_share_each_global_batch_without_overlap(tmp_path: Path) -> None:
    data = bert_data.open_dataset(write_dataset(tmp_path), 30522, 512)
    seen = [[b.labels for b in bert_data.train_batches(data, 8, r, 2, 7, 1)] for r in (0, 1)]
    assert len(seen[0]) == len(seen[1]) == 5 and all(len(b) == 4 for b in seen[0])
    order = np.random.default_rng([7, 1]).permutation(40)
    firsts = [data.train.rows(order[r * 4:(r + 1) * 4]) for r in (0, 1)]
    for rank in (0, 1):
        b = next(bert_data.train_batches(data, 8, rank, 2, 7, 1))
        chosen = b.labels != -100
        assert np.array_equal(b.labels[chosen], firsts[rank][chosen])


def test_masking_follows_bert(tmp_path: Path) -> None:
    data = bert_data.open_dataset(write_dataset(tmp_path, rows=4000), 30522, 512)
    rows = data.train.rows(np.arange(4000))
    batch = bert_data.mask_rows(rows, data, np.random.default_rng(0))
    candidate = (rows != 0) & (rows != 2) & (rows != 3)
    chosen = batch.labels != -100
    assert not (chosen & ~candidate).any()                 # specials and padding never chosen
    assert abs(chosen.sum() / candidate.sum() - 0.15) < 0.01
    masked = (batch.input_ids == 4) & chosen
    kept = (batch.input_ids == rows) & chosen
    assert abs(masked.sum() / chosen.sum() - 0.8) < 0.02
    assert 0.09 < kept.sum() / chosen.sum() < 0.12          # 10% kept (+ random hits)
    assert np.array_equal(batch.attention_mask, (rows != 0).astype(np.int64))
    assert batch.token_type_ids[0].tolist() == [0] * 7 + [1] * 5 + [0] * 4


def test_evaluation_masks_are_fixed_and_split_across_ranks(tmp_path: Path) -> None:
    data = bert_data.open_dataset(write_dataset(tmp_path), 30522, 512)
    one = bert_data.eval_batches(data, 4, 0, 1, 5, 0)
    again = bert_data.eval_batches(data, 4, 0, 1, 5, 0)
    assert all(np.array_equal(a.labels, b.labels) for a, b in zip(one, again))
    halves = [bert_data.eval_batches(data, 4, r, 2, 5, 0) for r in (0, 1)]
    merged = np.empty((20, 16), np.int64)
    merged[0::2] = np.concatenate([b.labels for b in halves[0]])
    merged[1::2] = np.concatenate([b.labels for b in halves[1]])
    assert np.array_equal(merged, np.concatenate([b.labels for b in one]))
