"""chipperf_runtime.wordpiece: the one BERT tokenizer of training's bert corpus and inference's
bert_large (pure)."""

from __future__ import annotations

from pathlib import Path

import pytest

from chipperf_runtime.wordpiece import SPECIALS, WordPiece, basic_tokens, build_vocab, write_vocab

VOCAB = [*SPECIALS, "un", "##aff", "##able", "the", "dog", ",", "!", "r", "##u", "##n", "##ning"]


def tokenizer() -> WordPiece:
    return WordPiece({t: i for i, t in enumerate(VOCAB)})


def test_basic_split_lowercases_strips_accents_and_splits_punctuation() -> None:
    assert basic_tokens("Héllo, World!  x=1\ty") == ["hello", ",", "world", "!", "x", "=", "1", "y"]
    assert basic_tokens("Héllo", lower=False) == ["Héllo"]


def test_control_characters_go_and_cjk_ideographs_stand_alone() -> None:
    assert basic_tokens("a\x00b\u200bc\ufffd d\x1ce") == ["abc", "de"]   # Cc, Cf dropped
    assert basic_tokens("ab中文cd") == ["ab", "中", "文", "cd"]


def test_wordpiece_is_greedy_longest_match_first() -> None:
    wp = tokenizer()
    assert wp.pieces("unaffable") == ["un", "##aff", "##able"]
    assert wp.pieces("running") == ["r", "##u", "##n", "##ning"]
    assert wp.pieces("cat") == ["[UNK]"] and wp.pieces("r" * 101) == ["[UNK]"]
    assert [VOCAB[i] for i in wp.encode("The dog, UNAFFABLE!")] == \
        ["the", "dog", ",", "un", "##aff", "##able", "!"]
    assert wp.encode("the dog") == wp.encode("the dog")   # cached words give the same ids


def test_vocab_file_round_trip_and_missing_specials(tmp_path: Path) -> None:
    path = tmp_path / "vocab.txt"
    write_vocab(path, VOCAB)
    assert WordPiece.from_file(path).vocab == tokenizer().vocab
    path.write_text("a\nb\n")
    with pytest.raises(ValueError, match="lacks"):
        WordPiece.from_file(path)


def test_built_vocab_is_words_then_pieces_and_spells_every_word() -> None:
    texts = ["The quick brown fox jumps over the lazy dog.", "Foxes jumped; dogs slept."] * 3
    tokens = build_vocab(texts, 80)
    chars = sorted({c for word in basic_tokens(" ".join(texts)) for c in word})
    assert tokens[: len(SPECIALS) + 2 * len(chars)] == \
        [*SPECIALS, *chars, *(f"##{c}" for c in chars)]
    assert len(tokens) == 80 and len(set(tokens)) == 80
    assert tokens == build_vocab(reversed(texts), 80)   # depends on the text, not its order
    wp = WordPiece({t: i for i, t in enumerate(tokens)})
    ids = wp.encode(" ".join(texts))
    assert wp.id("[UNK]") not in ids and len(ids) > 10
    whole = build_vocab(texts, 80, word_share=1.0)
    assert "the" in whole and "foxes" in whole


def test_a_vocab_too_small_for_the_characters_says_so() -> None:
    with pytest.raises(ValueError, match="distinct characters"):
        build_vocab(["abcdefghij"], 20)
