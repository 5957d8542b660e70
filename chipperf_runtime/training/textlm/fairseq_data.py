"""fairseq's binarized translation data (``fairseq-preprocess``, the layout of FlagPerf's
transformer case, NVIDIA's ``wmt14_en_de_joined_dict``)::

    <data_dir>/dict.<src>.txt, dict.<tgt>.txt     "<token> <count>" per line; id = 4 + line
                                                  (<s> 0, <pad> 1, </s> 2, <unk> 3 before them)
    <data_dir>/<split>.<src>-<tgt>.<lang>.idx     fairseq's IndexedDataset index ("TNTIDX")
    <data_dir>/<split>.<src>-<tgt>.<lang>.bin     the sentences' ids, each ending in </s>

Standard library and numpy only; ``write`` makes the same files (the CI data, tests).
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import numpy as np

SPECIALS = ("<s>", "<pad>", "</s>", "<unk>")
BOS, PAD, EOS, UNK = range(4)
MAGIC = b"TNTIDX\x00\x00"
DTYPES = {1: np.uint8, 2: np.int8, 3: np.int16, 4: np.int32, 5: np.int64, 6: np.float32,
          7: np.float64}


@dataclass(frozen=True)
class Sentences:
    """One language of one split: sentence ``i`` is ``data[offsets[i]:offsets[i + 1]]``."""

    data: np.ndarray
    offsets: np.ndarray

    def __len__(self) -> int:
        return len(self.offsets) - 1

    def lengths(self) -> np.ndarray:
        return np.diff(self.offsets)

    def get(self, i: int) -> np.ndarray:
        return np.asarray(self.data[self.offsets[i]:self.offsets[i + 1]], dtype=np.int64)


def read_dictionary(path: Path, problems: list[str]) -> list[str] | None:
    """The symbols of a fairseq dictionary file, specials first; None with a problem."""
    if not path.is_file():
        problems.append(f"{path} is missing")
        return None
    lines = path.read_text(encoding="utf-8").splitlines()
    bad = [n for n, line in enumerate(lines, 1) if len(line.rsplit(" ", 1)) != 2]
    if bad:
        problems.append(f"{path}: line {bad[0]} is not '<token> <count>'")
        return None
    return list(SPECIALS) + [line.rsplit(" ", 1)[0] for line in lines]


def read_sentences(prefix: Path, problems: list[str]) -> Sentences | None:
    """``<prefix>.idx`` + ``<prefix>.bin``; None with a problem naming the file."""
    index, data = prefix.with_name(prefix.name + ".idx"), prefix.with_name(prefix.name + ".bin")
    for file in (index, data):
        if not file.is_file():
            problems.append(f"{file} is missing")
            return None
    with open(index, "rb") as f:
        if f.read(8) != MAGIC:
            problems.append(f"{index} is not a fairseq IndexedDataset index (no {MAGIC!r} header)")
            return None
        _version, code, _size = struct.unpack("<QQQ", f.read(24))
        count, _dims = struct.unpack("<QQ", f.read(16))
        np.fromfile(f, dtype=np.int64, count=count + 1)          # dim offsets: 1-D sentences
        offsets = np.fromfile(f, dtype=np.int64, count=count + 1)
    if code not in DTYPES or len(offsets) != count + 1:
        problems.append(f"{index}: unknown element type {code} or a short index")
        return None
    return Sentences(np.memmap(data, dtype=DTYPES[code], mode="r"), offsets)


def write(prefix: Path, sentences: Sequence[np.ndarray]) -> None:
    """``<prefix>.idx/.bin`` as fairseq writes them (int32 ids)."""
    prefix.parent.mkdir(parents=True, exist_ok=True)
    lengths = np.array([len(s) for s in sentences], dtype=np.int64)
    offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
    np.concatenate(list(sentences) or [np.zeros(0)]).astype(np.int32).tofile(
        prefix.with_name(prefix.name + ".bin"))
    with open(prefix.with_name(prefix.name + ".idx"), "wb") as f:
        f.write(MAGIC + struct.pack("<QQQ", 1, 4, 4) + struct.pack("<QQ", len(lengths), len(lengths)))
        np.arange(len(lengths) + 1, dtype=np.int64).tofile(f)
        offsets.tofile(f)
        lengths.tofile(f)


def write_dictionary(path: Path, symbols: Sequence[str]) -> None:
    """The symbols after the specials, as "<token> <count>" lines (count 1)."""
    path.write_text("".join(f"{s} 1\n" for s in symbols), encoding="utf-8")
