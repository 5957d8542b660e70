"""BERT's WordPiece tokenizer (basic split + greedy longest-match word pieces), in pure Python.

Reads a standard BERT ``vocab.txt`` (one token a line, id = line number), so the real
``bert-large-uncased`` vocabulary works unchanged. ``build_vocab`` writes a WordPiece
vocabulary from a corpus (specials, every character alone and as ``##c``, then the most
frequent words) for data sets that come without one, such as the CI text.
"""

from __future__ import annotations

import unicodedata
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Mapping

SPECIALS = ("[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]")
MAX_WORD_CHARS = 100


def _is_punctuation(ch: str) -> bool:
    code = ord(ch)
    if 33 <= code <= 47 or 58 <= code <= 64 or 91 <= code <= 96 or 123 <= code <= 126:
        return True
    return unicodedata.category(ch).startswith("P")


def _is_cjk(code: int) -> bool:
    return (0x4E00 <= code <= 0x9FFF or 0x3400 <= code <= 0x4DBF or 0x20000 <= code <= 0x2A6DF
            or 0xF900 <= code <= 0xFAFF or 0x2F800 <= code <= 0x2FA1F)


def _clean(text: str) -> str:
    out = []
    for ch in text:
        if ch == "\x00" or ch == "\ufffd" or unicodedata.category(ch) in ("Cc", "Cf"):
            if ch in "\t\n\r":
                out.append(" ")
            continue
        out.append(" " if ch.isspace() else f" {ch} " if _is_cjk(ord(ch)) else ch)
    return "".join(out)


def _strip_accents(word: str) -> str:
    return "".join(c for c in unicodedata.normalize("NFD", word) if unicodedata.category(c) != "Mn")


def basic_tokens(text: str, lower: bool = True) -> list[str]:
    """Whitespace and punctuation split, lower-cased and accent-stripped when ``lower``."""
    tokens: list[str] = []
    for word in _clean(text).split():
        if lower:
            word = _strip_accents(word.lower())
        current = ""
        for ch in word:
            if _is_punctuation(ch):
                tokens += [current, ch] if current else [ch]
                current = ""
            else:
                current += ch
        if current:
            tokens.append(current)
    return tokens


@dataclass(frozen=True)
class WordPiece:
    vocab: Mapping[str, int]
    lower: bool = True

    @classmethod
    def from_file(cls, path: str | Path, lower: bool = True) -> "WordPiece":
        lines = Path(path).read_text(encoding="utf-8").splitlines()
        vocab = {token: index for index, token in enumerate(t.rstrip("\r") for t in lines)}
        missing = [s for s in SPECIALS if s not in vocab]
        if missing:
            raise ValueError(f"{path}: vocabulary lacks {', '.join(missing)}")
        return cls(vocab, lower)

    def id(self, token: str) -> int:
        return self.vocab[token]

    def pieces(self, word: str) -> list[str]:
        if len(word) > MAX_WORD_CHARS:
            return ["[UNK]"]
        out, start = [], 0
        while start < len(word):
            end = len(word)
            while end > start:
                piece = word[start:end] if start == 0 else "##" + word[start:end]
                if piece in self.vocab:
                    break
                end -= 1
            if end == start:
                return ["[UNK]"]
            out.append(piece)
            start = end
        return out

    def encode(self, text: str) -> list[int]:
        """Token ids of ``text`` (no [CLS]/[SEP])."""
        return [self.vocab[p] for word in basic_tokens(text, self.lower) for p in self.pieces(word)]


def build_vocab(texts: Iterable[str], size: int, lower: bool = True) -> list[str]:
    """A WordPiece vocabulary that can spell every word of ``texts``: the specials, every
    character alone and as ``##c``, then the most frequent whole words up to ``size`` tokens."""
    words: Counter[str] = Counter()
    for text in texts:
        words.update(basic_tokens(text, lower))
    chars = sorted({ch for word in words for ch in word})
    vocab = list(SPECIALS) + chars + [f"##{ch}" for ch in chars]
    known = set(vocab)
    for word, _ in words.most_common():
        if len(vocab) >= size:
            break
        if word not in known:
            vocab.append(word)
            known.add(word)
    return vocab
