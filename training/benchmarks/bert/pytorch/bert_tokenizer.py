"""BERT's uncased tokenizer (BasicTokenizer + WordPiece), standard library only.

``tokenize`` follows google-research/bert ``tokenization.py``: clean control characters,
lower-case, strip accents, split on whitespace and punctuation, then greedy longest-match
WordPiece with ``##`` continuation pieces. Any BERT ``vocab.txt`` (one token per line, id =
line number) works with it, e.g. bert-large-uncased's 30,522-token vocabulary.

``build_vocab`` makes a small WordPiece vocabulary from a corpus (for the offline CI
dataset): special tokens, every character seen (word-initial and ``##`` form), the most
frequent words, then the most frequent word-initial and ``##`` pieces of the remaining words.
"""

from __future__ import annotations

import unicodedata
from collections import Counter
from pathlib import Path
from typing import Iterable, Mapping

PAD, UNK, CLS, SEP, MASK = "[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"
SPECIALS = (PAD, UNK, CLS, SEP, MASK)
MAX_WORD_CHARS = 100


def read_vocab(path: Path) -> dict[str, int]:
    tokens = Path(path).read_text(encoding="utf-8").splitlines()
    return {token: index for index, token in enumerate(tokens)}


def write_vocab(path: Path, tokens: Iterable[str]) -> None:
    Path(path).write_text("".join(f"{t}\n" for t in tokens), encoding="utf-8")


# ---------------------------------------------------------------- basic tokenizer


def _is_punctuation(char: str) -> bool:
    code = ord(char)
    if 33 <= code <= 47 or 58 <= code <= 64 or 91 <= code <= 96 or 123 <= code <= 126:
        return True
    return unicodedata.category(char).startswith("P")


def _is_control(char: str) -> bool:
    if char in "\t\n\r":
        return False
    return unicodedata.category(char) in ("Cc", "Cf")


def _clean(text: str) -> str:
    out = []
    for char in text:
        if ord(char) in (0, 0xFFFD) or _is_control(char):
            continue
        out.append(" " if char.isspace() else char)
    return "".join(out)


def _strip_accents(text: str) -> str:
    return "".join(c for c in unicodedata.normalize("NFD", text) if unicodedata.category(c) != "Mn")


def _split_punctuation(word: str) -> list[str]:
    pieces: list[str] = []
    current = ""
    for char in word:
        if _is_punctuation(char):
            if current:
                pieces.append(current)
            pieces.append(char)
            current = ""
        else:
            current += char
    return pieces + ([current] if current else [])


def basic_tokens(text: str) -> list[str]:
    """Lower-cased, accent-stripped words and punctuation marks."""
    words = _strip_accents(_clean(text).lower()).split()
    return [piece for word in words for piece in _split_punctuation(word)]


# ---------------------------------------------------------------- WordPiece


def wordpiece(word: str, vocab: Mapping[str, int]) -> list[str]:
    """Greedy longest-match-first split of one word; [UNK] when a piece cannot be found."""
    if len(word) > MAX_WORD_CHARS:
        return [UNK]
    pieces, start = [], 0
    while start < len(word):
        end = len(word)
        while end > start:
            piece = word[start:end] if start == 0 else "##" + word[start:end]
            if piece in vocab:
                break
            end -= 1
        if end == start:
            return [UNK]
        pieces.append(piece)
        start = end
    return pieces


def tokenize(text: str, vocab: Mapping[str, int]) -> list[int]:
    unk = vocab[UNK]
    cache: dict[str, list[int]] = {}
    ids: list[int] = []
    for word in basic_tokens(text):
        if word not in cache:
            cache[word] = [vocab.get(p, unk) for p in wordpiece(word, vocab)]
        ids.extend(cache[word])
    return ids


# ---------------------------------------------------------------- building a vocabulary


def build_vocab(texts: Iterable[str], size: int, word_share: float = 0.6) -> list[str]:
    """A WordPiece vocabulary of at most ``size`` tokens for ``texts`` (deterministic)."""
    words = Counter(w for text in texts for w in basic_tokens(text))
    chars = sorted({c for w in words for c in w})
    tokens = list(dict.fromkeys([*SPECIALS, *chars, *("##" + c for c in chars)]))
    if len(tokens) > size:
        raise ValueError(f"the corpus has {len(chars)} distinct characters: a vocabulary of "
                         f"{size} cannot hold them; use a larger size")
    ranked = _ranked(words)
    n_words = max(0, int(size * word_share) - len(tokens))
    tokens += [w for w in ranked if w not in tokens][:n_words]
    known = set(tokens)
    rest = Counter({w: n for w, n in words.items() if w not in known})
    tokens += [p for p in _ranked(_pieces(rest)) if p not in known][: size - len(tokens)]
    return tokens


def _ranked(counts: Mapping[str, int]) -> list[str]:
    return [k for k, _ in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))]


def _pieces(words: Mapping[str, int], longest: int = 8) -> Counter:
    """Word-initial prefixes and ``##`` suffixes (2..longest characters), weighted by count."""
    pieces: Counter = Counter()
    for word, count in words.items():
        for n in range(2, min(longest, len(word) - 1) + 1):
            pieces[word[:n]] += count
            pieces["##" + word[-n:]] += count
    return pieces
