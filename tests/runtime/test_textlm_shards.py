"""The shard readers the text cases share: textlm.mlm (both bert cases' masked-LM rows, BERT
masking, per-rank batches, fixed eval masks) and textlm.tokens (llama2_7b's token windows and
micro-batches), with every malformed input reported before training."""

from __future__ import annotations

from pathlib import Path

import casemodules  # noqa: F401  (puts driver and textlm on sys.path)
import numpy as np
import pytest

from chipperf_runtime.training.driver import ConfigError, DataError
from chipperf_runtime.training.textlm import mlm, tokens
from chipperf_runtime.training.textlm.shards import Numbering

# ---------------------------------------------------------------- mlm (both bert cases)


def write_mlm(root: Path, rows: int = 40, seq_len: int = 16, vocab_size: int = 50) -> Path:
    """[CLS] A(5) [SEP] B(4) [SEP] [PAD]x4 rows of random words."""
    words = list(mlm.SPECIALS) + [f"w{i}" for i in range(vocab_size - 5)]
    (root / "vocab.txt").write_text("\n".join(words) + "\n")
    rng = np.random.default_rng(0)
    for split, n in (("train", rows), ("eval", rows // 2)):
        body = rng.integers(5, vocab_size, size=(n, seq_len))
        body[:, 0], body[:, 6], body[:, 11] = 2, 3, 3
        body[:, 12:] = 0
        (root / split).mkdir(parents=True, exist_ok=True)
        np.save(root / split / "shard_00000.npy", body.astype(np.uint16))
    return root


def open_mlm(root: Path, vocab_size: int = 30522, positions: int = 512) -> mlm.MLMDataset:
    return mlm.open_dataset(root, vocab_size, positions, "cases/x/prepare_data.py")


def test_opens_a_valid_mlm_dataset(tmp_path: Path) -> None:
    data = open_mlm(write_mlm(tmp_path))
    assert (len(data.train), len(data.eval), data.seq_len) == (40, 20, 16)
    assert mlm.eval_rows(data, 0) == 20 and mlm.eval_rows(data, 8) == 8


@pytest.mark.parametrize("breakage, message", [
    (lambda root: (root / "vocab.txt").unlink(), "vocab.txt is missing"),
    (lambda root: (root / "vocab.txt").write_text("a\nb\n"), "lacks the special tokens"),
    (lambda root: np.save(root / "train" / "shard_00000.npy", np.arange(9)),
     "expected a non-empty 2-D integer array"),
    (lambda root: np.save(root / "train" / "shard_00000.npy", np.zeros((0, 16), np.int32)),
     "expected a non-empty 2-D integer array"),
    (lambda root: np.save(root / "eval" / "shard_00000.npy", np.zeros((3, 16), np.float32)),
     "expected a non-empty 2-D integer array"),
    (lambda root: (root / "eval" / "shard_00000.npy").write_bytes(b"junk"),
     "is not a readable .npy array"),
    (lambda root: np.save(root / "eval" / "shard_00000.npy", np.zeros((3, 8), np.int32)),
     "different sequence lengths"),
    (lambda root: (root / "train" / "shard_00000.npy").unlink(), "train has no .npy shards"),
])
def test_malformed_mlm_datasets_fail_with_the_reason(tmp_path: Path, breakage, message) -> None:
    root = write_mlm(tmp_path)
    breakage(root)
    with pytest.raises(DataError, match=message) as error:
        open_mlm(root)
    assert str(error.value).startswith(f"bert dataset {root} is not usable:\n  - ")
    assert str(error.value).endswith(mlm.LAYOUT)


def test_every_mlm_problem_is_listed_at_once(tmp_path: Path) -> None:
    (tmp_path / "train").mkdir()
    np.save(tmp_path / "train" / "shard_00000.npy", np.zeros(10, np.uint16))
    with pytest.raises(DataError) as error:
        open_mlm(tmp_path)
    assert [line for line in str(error.value).splitlines() if line.startswith("  - ")] == [
        f"  - {tmp_path / 'vocab.txt'} is missing (the WordPiece vocabulary, one token per line)",
        f"  - {tmp_path / 'train' / 'shard_00000.npy'}: expected a non-empty 2-D integer array "
        "[rows, seq_len], got shape (10,) dtype uint16",
        f"  - {tmp_path / 'eval'} has no .npy shards"]


def test_missing_mlm_data_dir_names_the_case_script_and_the_layout(tmp_path: Path) -> None:
    with pytest.raises(DataError) as error:
        open_mlm(tmp_path / "nope")
    assert str(error.value) == (
        f"data dir {tmp_path / 'nope'} does not exist or is not a folder; make one with "
        f"cases/x/prepare_data.py --output DIR {mlm.LAYOUT}")


def test_vocab_larger_than_the_model_and_too_long_sequences_fail(tmp_path: Path) -> None:
    root = write_mlm(tmp_path)
    with pytest.raises(DataError, match="has 50 tokens but the model's vocab_size is 40"):
        open_mlm(root, vocab_size=40)
    with pytest.raises(DataError, match="sequence length 16 exceeds the model's 8 positions"):
        open_mlm(root, positions=8)


def test_token_ids_outside_the_vocabulary_fail(tmp_path: Path) -> None:
    root = write_mlm(tmp_path)
    bad = np.load(root / "train" / "shard_00000.npy")
    bad[0, 1] = 60
    np.save(root / "train" / "shard_00000.npy", bad)
    data = open_mlm(root)
    with pytest.raises(DataError, match="token id 60 .*outside vocab.txt's 50 tokens: the "
                                        "shards were not made with this vocabulary"):
        list(mlm.train_batches(data, 40, 0, 1, 0, 0))


def test_one_global_batch_is_required(tmp_path: Path) -> None:
    data = open_mlm(write_mlm(tmp_path))
    mlm.require_one_batch(data, 40)
    with pytest.raises(DataError, match="the train split has 40 rows, fewer than one global "
                                        "batch of 41"):
        mlm.require_one_batch(data, 41)


def test_ranks_share_each_global_batch_without_overlap(tmp_path: Path) -> None:
    data = open_mlm(write_mlm(tmp_path))
    seen = [[b.labels for b in mlm.train_batches(data, 8, r, 2, 7, 1)] for r in (0, 1)]
    assert len(seen[0]) == len(seen[1]) == 5 and all(len(b) == 4 for b in seen[0])
    order = np.random.default_rng([7, 1]).permutation(40)
    firsts = [data.train.rows(order[r * 4:(r + 1) * 4]) for r in (0, 1)]
    for rank in (0, 1):
        b = next(mlm.train_batches(data, 8, rank, 2, 7, 1))
        chosen = b.labels != mlm.IGNORE
        assert np.array_equal(b.labels[chosen], firsts[rank][chosen])


def test_masking_follows_bert(tmp_path: Path) -> None:
    data = open_mlm(write_mlm(tmp_path, rows=4000))
    rows = data.train.rows(np.arange(4000))
    batch = mlm.mask_rows(rows, data, np.random.default_rng(0))
    candidate = (rows != 0) & (rows != 2) & (rows != 3)
    chosen = batch.labels != mlm.IGNORE
    assert not (chosen & ~candidate).any()                 # specials and padding never chosen
    assert np.array_equal(batch.labels[chosen], rows[chosen])
    assert np.array_equal(batch.input_ids[~chosen], rows[~chosen])
    assert abs(chosen.sum() / candidate.sum() - 0.15) < 0.01
    masked = (batch.input_ids == 4) & chosen
    kept = (batch.input_ids == rows) & chosen
    assert abs(masked.sum() / chosen.sum() - 0.8) < 0.02
    assert 0.09 < kept.sum() / chosen.sum() < 0.12          # 10% kept (+ random hits)
    assert np.array_equal(batch.attention_mask, (rows != 0).astype(np.int64))
    assert batch.token_type_ids[0].tolist() == [0] * 7 + [1] * 5 + [0] * 4


def test_evaluation_masks_are_fixed_and_split_across_ranks(tmp_path: Path) -> None:
    data = open_mlm(write_mlm(tmp_path))
    one = mlm.eval_batches(data, 4, 0, 1, 5, 0)
    again = mlm.eval_batches(data, 4, 0, 1, 5, 0)
    assert all(np.array_equal(a.labels, b.labels) for a, b in zip(one, again))
    halves = [mlm.eval_batches(data, 4, r, 2, 5, 0) for r in (0, 1)]
    merged = np.empty((20, 16), np.int64)
    merged[0::2] = np.concatenate([b.labels for b in halves[0]])
    merged[1::2] = np.concatenate([b.labels for b in halves[1]])
    assert np.array_equal(merged, np.concatenate([b.labels for b in one]))
    assert sum(len(b.labels) for b in mlm.eval_batches(data, 4, 0, 1, 5, 6)) == 6


def test_rows_are_numbered_across_shards(tmp_path: Path) -> None:
    root = write_mlm(tmp_path)
    np.save(root / "train" / "shard_00001.npy", np.full((3, 16), 7, np.uint16))
    data = open_mlm(root)
    assert len(data.train) == 43
    assert (data.train.rows(np.array([41, 40])) == 7).all()
    shard, local = Numbering.of([40, 3]).locate(np.array([0, 39, 40, 42]))
    assert shard.tolist() == [0, 0, 1, 1] and local.tolist() == [0, 39, 0, 2]


# ---------------------------------------------------------------- tokens (llama2_7b)


def write_tokens(root: Path, train_tokens: int = 1001, eval_tokens: int = 201) -> Path:
    for split, n in (("train", train_tokens), ("eval", eval_tokens)):
        (root / split).mkdir(parents=True, exist_ok=True)
        np.save(root / split / "shard_00000.npy", (np.arange(n) % 250 + 3).astype(np.uint16))
    return root


def open_tokens(root: Path, seq_len: int = 10, vocab_size: int = 259) -> tokens.TokenDataset:
    return tokens.open_dataset(root, seq_len, vocab_size, "cases/y/prepare_data.py")


def test_windows_are_seq_len_plus_one_and_do_not_overlap(tmp_path: Path) -> None:
    data = open_tokens(write_tokens(tmp_path))
    assert (len(data.train), len(data.eval)) == (100, 20)
    w = data.train.take(np.array([0, 1, 99]))
    assert w.shape == (3, 11)
    assert w[1, 0] == w[0, -1] and w[2, -1] == 1000 % 250 + 3


def test_windows_do_not_cross_shards(tmp_path: Path) -> None:
    root = write_tokens(tmp_path)
    np.save(root / "train" / "shard_00001.npy", np.full(25, 7, np.uint16))
    data = open_tokens(root)
    assert len(data.train) == 102
    assert (data.train.take(np.array([100, 101])) == 7).all()


def test_micro_batches_split_the_global_batch_over_ranks(tmp_path: Path) -> None:
    data = open_tokens(write_tokens(tmp_path))
    per_rank = [list(tokens.train_micro_batches(data, 8, 2, r, 2, 3, 1)) for r in (0, 1)]
    assert len(per_rank[0]) == len(per_rank[1]) == 2 * 12  # 12 global batches x 2 micro each
    first = np.concatenate(per_rank[0][:2] + per_rank[1][:2])
    order = np.random.default_rng([3, 1]).permutation(100)
    assert np.array_equal(first, data.train.take(order[:8]))


def test_every_rank_runs_the_same_number_of_eval_batches(tmp_path: Path) -> None:
    data = open_tokens(write_tokens(tmp_path))
    shares = [tokens.eval_batches(data, 2, r, 3, 0) for r in range(3)]
    assert [len(s) for s in shares] == [3, 3, 3]             # 20 samples -> 18 used
    assert sum(len(b) for s in shares for b in s) == 18


@pytest.mark.parametrize("breakage, message", [
    (lambda root: (root / "train" / "shard_00000.npy").unlink(), "train has no .npy shards"),
    (lambda root: np.save(root / "eval" / "shard_00000.npy", np.zeros((4, 4), np.int32)),
     "expected a 1-D integer token array"),
    (lambda root: np.save(root / "eval" / "shard_00000.npy", np.zeros(4, np.float32)),
     "expected a 1-D integer token array"),
    (lambda root: (root / "eval" / "shard_00000.npy").write_bytes(b"junk"),
     "is not a readable .npy array"),
    (lambda root: np.save(root / "eval" / "shard_00000.npy", np.zeros(5, np.int32)),
     "no shard holds seq_len \\+ 1 = 11 tokens"),
])
def test_malformed_token_datasets_fail_with_the_reason(tmp_path: Path, breakage,
                                                       message) -> None:
    root = write_tokens(tmp_path)
    breakage(root)
    with pytest.raises(DataError, match=message) as error:
        open_tokens(root)
    assert str(error.value).startswith(f"llama2 dataset {root} is not usable:\n  - ")
    assert str(error.value).endswith(tokens.LAYOUT)


def test_missing_token_data_dir_says_how_to_make_one(tmp_path: Path) -> None:
    with pytest.raises(DataError) as error:
        open_tokens(tmp_path / "nope")
    assert str(error.value) == (f"data dir {tmp_path / 'nope'} does not exist or is not a "
                                "folder; make one with cases/y/prepare_data.py --output DIR")


def test_token_ids_beyond_the_vocabulary_fail(tmp_path: Path) -> None:
    data = open_tokens(write_tokens(tmp_path), vocab_size=100)
    with pytest.raises(DataError, match="outside the model's vocab_size 100: the shards were "
                                        "made with another tokenizer"):
        tokens.eval_batches(data, 2, 0, 1, 0)


def test_batching_problems_fail_before_training(tmp_path: Path) -> None:
    data = open_tokens(write_tokens(tmp_path))
    tokens.check_batching(data, 8, 2, 2)
    with pytest.raises(ConfigError, match="does not divide across 3 ranks"):
        tokens.check_batching(data, 8, 2, 3)
    with pytest.raises(ConfigError, match="4 samples per rank, not a multiple of "
                                          "micro_batch_size 3"):
        tokens.check_batching(data, 8, 3, 2)
    with pytest.raises(DataError, match="fewer than one global batch of 128"):
        tokens.check_batching(data, 128, 1, 1)
    with pytest.raises(DataError, match="the eval split has 20 samples .* fewer than the 32"):
        tokens.check_batching(data, 32, 1, 32)
