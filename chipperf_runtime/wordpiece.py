"""BERT's WordPiece tokenizer (BasicTokenizer + WordPiece), standard library only.

Case-side library, shipped into every container with the rest of ``chipperf`` (STYLE.md 17):
training's bert corpus builder (``training/benchmarks/bert/pytorch/prepare_data.py``, whose
shards the bert, distilbert and bert/paddle cases read) and inference's bert_large case
(``chipperf_runtime/inference/text.py`` and ``bert_large/pytorch/prepare_text.py``) use this
one tokenizer.

``WordPiece.encode`` follows google-research/bert ``tokenization.py``: drop control
characters, put spaces around CJK ideographs, lower-case and strip accents (uncased models),
split on whitespace and punctuation, then greedy longest-match WordPiece with ``##``
continuation pieces. Any BERT ``vocab.txt`` (one token a line, id = line number) works, e.g.
bert-large-uncased's 30,522 tokens.

``build_vocab`` makes a small WordPiece vocabulary from a corpus, for data sets that come
without one (the CI text): the specials, every character seen (alone and as ``##c``), the
most frequent words, then the most frequent word-initial and ``##`` pieces of the words left
out. Ties are broken by the token, so the vocabulary depends only on the text.
"""

from __future__ import annotations

import unicodedata
from collections import Counter
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Iterable, Mapping

PAD, UNK, CLS, SEP, MASK = "[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"
SPECIALS = (PAD, UNK, CLS, SEP, MASK)
MAX_WORD_CHARS = 100
CJK_RANGES = ((0x4E00, 0x9FFF), (0x3400, 0x4DBF), (0x20000, 0x2A6DF), (0xF900, 0xFAFF),
              (0x2F800, 0x2FA1F))


# ---------------------------------------------------------------- basic tokenizer


# The per-character rules below are pure functions of the character; a corpus has few distinct
# characters, so each is decided once (functools.cache) instead of at every occurrence.


@cache
def _is_punctuation(char: str) -> bool:
    code = ord(char)
    if 33 <= code <= 47 or 58 <= code <= 64 or 91 <= code <= 96 or 123 <= code <= 126:
        return True
    return unicodedata.category(char).startswith("P")


def _is_cjk(char: str) -> bool:
    code = ord(char)
    return any(low <= code <= high for low, high in CJK_RANGES)


@cache
def _cleaned(char: str) -> str:
    """One character as ``_clean`` writes it: dropped (a control character), a space (any
    whitespace), spaced apart (a CJK ideograph), else itself."""
    if char in "\x00\ufffd" or (unicodedata.category(char) in ("Cc", "Cf")
                                 and char not in "\t\n\r"):
        return ""
    return " " if char.isspace() else f" {char} " if _is_cjk(char) else char


def _clean(text: str) -> str:
    """Control characters dropped, any whitespace as a space, CJK ideographs spaced apart."""
    return "".join(map(_cleaned, text))


def _strip_accents(word: str) -> str:
    return "".join(c for c in unicodedata.normalize("NFD", word) if unicodedata.category(c) != "Mn")


def _split_punctuation(word: str) -> list[str]:
    pieces: list[str] = []
    current = ""
    for char in word:
        if _is_punctuation(char):
            pieces += [current, char] if current else [char]
            current = ""
        else:
            current += char
    return pieces + ([current] if current else [])


def basic_tokens(text: str, lower: bool = True) -> list[str]:
    """Words and punctuation marks; lower-cased and accent-stripped when ``lower``."""
    words = _clean(text).split()
    if lower:
        words = [_strip_accents(word.lower()) for word in words]
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


@dataclass(frozen=True)
class WordPiece:
    """A vocabulary (token -> id) and how to split text into its ids."""

    vocab: Mapping[str, int]
    lower: bool = True
    _cache: dict[str, list[int]] = field(default_factory=dict, init=False, repr=False,
                                          compare=False)

    @classmethod
    def from_file(cls, path: str | Path, lower: bool = True) -> "WordPiece":
        """A ``vocab.txt``; ValueError when it lacks one of the special tokens."""
        lines = Path(path).read_text(encoding="utf-8").splitlines()
        vocab = {token: index for index, token in enumerate(t.rstrip("\r") for t in lines)}
        missing = [s for s in SPECIALS if s not in vocab]
        if missing:
            raise ValueError(f"{path}: vocabulary lacks {', '.join(missing)}")
        return cls(vocab, lower)

    def id(self, token: str) -> int:
        return self.vocab[token]

    def pieces(self, word: str) -> list[str]:
        return wordpiece(word, self.vocab)

    def encode(self, text: str) -> list[int]:
        """Token ids of ``text`` (no [CLS]/[SEP]); each word is split once."""
        ids: list[int] = []
        for word in basic_tokens(text, self.lower):
            if word not in self._cache:
                self._cache[word] = [self.vocab[p] for p in self.pieces(word)]
            ids.extend(self._cache[word])
        return ids


def write_vocab(path: str | Path, tokens: Iterable[str]) -> None:
    Path(path).write_text("".join(f"{t}\n" for t in tokens), encoding="utf-8")


# ---------------------------------------------------------------- building a vocabulary


def build_vocab(texts: Iterable[str], size: int, word_share: float = 0.6,
                lower: bool = True) -> list[str]:
    """A WordPiece vocabulary of at most ``size`` tokens that spells every word of ``texts``:
    whole words up to ``word_share`` of ``size``, pieces of the other words after them."""
    words = Counter(w for text in texts for w in basic_tokens(text, lower))
    chars = sorted({c for w in words for c in w})
    tokens = list(dict.fromkeys([*SPECIALS, *chars, *("##" + c for c in chars)]))
    if len(tokens) > size:
        raise ValueError(f"the corpus has {len(chars)} distinct characters: a vocabulary of "
                         f"{size} cannot hold them; use a larger size")
    n_words = max(0, int(size * word_share) - len(tokens))
    tokens += [w for w in _ranked(words) if w not in tokens][:n_words]
    known = set(tokens)
    rest = Counter({w: n for w, n in words.items() if w not in known})
    tokens += [p for p in _ranked(_pieces(rest)) if p not in known][: size - len(tokens)]
    return tokens


def _ranked(counts: Mapping[str, int]) -> list[str]:
    return [k for k, _ in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))]


def _pieces(words: Mapping[str, int], longest: int = 8) -> Counter[str]:
    """Word-initial prefixes and ``##`` suffixes (2..longest characters), weighted by count."""
    pieces: Counter[str] = Counter()
    for word, count in words.items():
        for n in range(2, min(longest, len(word) - 1) + 1):
            pieces[word[:n]] += count
            pieces["##" + word[-n:]] += count
    return pieces
