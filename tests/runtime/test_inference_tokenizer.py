"""Masked-LM item encoding and the text data set reader of bert_large (pure). The tokenizer
(chipperf_runtime.wordpiece) is tested in test_wordpiece.py."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "inference" / "benchmarks"))

from chipperf_runtime.inference import text  # noqa: E402
from chipperf_runtime.inference.errors import CaseError  # noqa: E402
from chipperf_runtime.wordpiece import SPECIALS, WordPiece  # noqa: E402

VOCAB = [*SPECIALS, "un", "##aff", "##able", "the", "dog", ",", "!", "r", "##u", "##n", "##ning"]


def tokenizer() -> WordPiece:
    return WordPiece({t: i for i, t in enumerate(VOCAB)})


def test_encode_item_masks_deterministically() -> None:
    wp = tokenizer()
    a = text.encode_item("the dog running unaffable the dog", wp, 16, 0.3, seed=1)
    b = text.encode_item("the dog running unaffable the dog", wp, 16, 0.3, seed=1)
    c = text.encode_item("the dog running unaffable the dog", wp, 16, 0.3, seed=2)
    for x, y in zip(a, b):
        np.testing.assert_array_equal(x, y)
    ids, mask, targets = a
    assert ids[0] == wp.id("[CLS]") and mask.sum() == 2 + 11
    assert ids[mask.sum() - 1] == wp.id("[SEP]") and (ids[mask.sum():] == wp.id("[PAD]")).all()
    masked = targets != text.IGNORE
    assert masked.sum() == 3 and (ids[masked] == wp.id("[MASK]")).all()
    assert not np.array_equal(c[2], targets)  # another seed masks other positions


def test_encode_item_truncates_to_seq_len() -> None:
    ids, mask, _ = text.encode_item("the dog " * 50, tokenizer(), 8, 0.15, seed=0)
    assert len(ids) == 8 and mask.all() and ids[-1] == tokenizer().id("[SEP]")


def test_load_reads_txt_and_squad_json(tmp_path: Path) -> None:
    (tmp_path / "vocab.txt").write_text("\n".join(VOCAB) + "\n")
    (tmp_path / "a.txt").write_text("the dog " * 10)
    (tmp_path / "dev.json").write_text(
        '{"data": [{"paragraphs": [{"context": "the dog running"}]}]}')
    items = text.load(tmp_path, None, words_per_item=8, seq_len=16, mask_fraction=0.15, seed=0)
    assert len(items) == 4 and items.items[-1] == "the dog running"
    batch = items.batch([0, 3])
    assert [t.shape for t in batch.inputs] == [(2, 16), (2, 16)]


def test_load_errors_name_the_fix(tmp_path: Path) -> None:
    with pytest.raises(CaseError, match="does not exist"):
        text.load(tmp_path / "nope", None, 8, 16, 0.15, 0)
    with pytest.raises(CaseError, match="prepare_text.py"):
        text.load(tmp_path, None, 8, 16, 0.15, 0)
    (tmp_path / "vocab.txt").write_text("\n".join(VOCAB) + "\n")
    with pytest.raises(CaseError, match="no text found"):
        text.load(tmp_path, None, 8, 16, 0.15, 0)
