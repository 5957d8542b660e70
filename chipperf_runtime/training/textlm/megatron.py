"""Megatron-LM's memory-mapped indexed dataset (``preprocess_data.py --dataset-impl mmap``), the
layout FlagPerf's gpt2 case trains on (``lambada_train_text_document.idx`` / ``.bin``).

``<prefix>.idx``: the magic ``MMIDIDX\\x00\\x00``, version 1 (``<Q``), a dtype code (``<B``), the
sequence count and the document count (``<Q`` each), then int32 sizes, int64 byte pointers and
int64 document starts. ``<prefix>.bin``: every sequence's token ids back to back in that dtype
(with ``--append-eod`` each document ends with the end-of-text id). A causal-LM case reads the
whole ``.bin`` as one token stream. Standard library and numpy only.
"""

from __future__ import annotations

import struct
from pathlib import Path

import numpy as np

MAGIC = b"MMIDIDX\x00\x00"
DTYPES = {1: np.uint8, 2: np.int8, 3: np.int16, 4: np.int32, 5: np.int64, 8: np.uint16}
HEADER = len(MAGIC) + 8 + 1 + 8 + 8


def prefixes(data_dir: Path) -> list[Path]:
    """``<prefix>`` of every ``<prefix>.idx`` in ``data_dir``, in name order."""
    return [p.parent / p.name[:-len(".idx")] for p in sorted(Path(data_dir).glob("*.idx"))]


def _file(prefix: Path, suffix: str) -> Path:
    return prefix.parent / (prefix.name + suffix)


def token_stream(prefix: Path, problems: list[str]) -> np.ndarray | None:
    """The ``.bin`` of ``prefix`` as a read-only 1-D token array, checked against its ``.idx``;
    None (and a problem) when either file is missing or they disagree."""
    index, data = _file(prefix, ".idx"), _file(prefix, ".bin")
    if not data.is_file():
        problems.append(f"{index} has no {data.name} beside it")
        return None
    header = _header(index, problems)
    if header is None:
        return None
    dtype, sequences = header
    sizes = np.fromfile(index, dtype=np.int32, count=sequences, offset=HEADER)
    stream = np.memmap(data, dtype=dtype, mode="r")
    if len(sizes) != sequences or int(sizes.sum()) != len(stream):
        problems.append(f"{index} counts {int(sizes.sum())} tokens in {sequences} sequences, "
                        f"{data.name} holds {len(stream)}: the pair is not one dataset")
        return None
    return stream


def _header(index: Path, problems: list[str]) -> tuple[type, int] | None:
    raw = index.read_bytes()[:HEADER]
    if len(raw) < HEADER or raw[:len(MAGIC)] != MAGIC:
        problems.append(f"{index} is not a Megatron mmap index (magic {MAGIC!r})")
        return None
    version, code, sequences, _documents = struct.unpack("<QBQQ", raw[len(MAGIC):])
    if version != 1 or code not in DTYPES:
        problems.append(f"{index}: version {version}, dtype code {code}: expected version 1 and "
                        f"an integer dtype code {sorted(DTYPES)}")
        return None
    return DTYPES[code], sequences


def write(prefix: Path, documents: list[np.ndarray], dtype: type = np.uint16) -> None:
    """``prefix.idx`` and ``prefix.bin`` holding ``documents`` (one sequence each), as
    Megatron's builder writes them."""
    sizes = np.asarray([len(d) for d in documents], dtype=np.int32)
    pointers = np.concatenate([[0], np.cumsum(sizes[:-1], dtype=np.int64)]) * np.dtype(dtype).itemsize
    code = next(k for k, v in DTYPES.items() if v == dtype)
    with open(_file(prefix, ".bin"), "wb") as out:
        for doc in documents:
            out.write(np.asarray(doc, dtype=dtype).tobytes())
    with open(_file(prefix, ".idx"), "wb") as out:
        out.write(MAGIC + struct.pack("<QBQQ", 1, code, len(sizes), len(sizes) + 1))
        out.write(sizes.tobytes() + pointers.astype(np.int64).tobytes()
                  + np.arange(len(sizes) + 1, dtype=np.int64).tobytes())
