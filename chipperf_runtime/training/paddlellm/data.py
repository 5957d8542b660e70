"""FlagPerf's data for its Paddle LLM cases: PaddleNLP's pretraining layout, read with numpy.

Layout "paddlenlp-ids-v1" (FlagPerf's nvidia READMEs download
``llama_openwebtext_100k_ids.npy`` + ``_idx.npz`` for llama1, ``gpt_en_dataset_300m_ids.npy`` +
``_idx.npz`` for gpt3)::

    <data_dir>/<prefix>_ids.npy   1-D integer array: every document's token ids, concatenated
    <data_dir>/<prefix>_idx.npz   ``lens``: each sentence's length in tokens, in order;
                                  ``docs``: where each document starts, counted in sentences
                                  (len(docs) - 1 documents; without it every sentence is one)

(PaddleNLP's ``create_pretraining_data.py`` writes these two files; a sentence is whatever it
split the text into.)

Every ``<prefix>`` with both files is read, in name order. The documents are split by the
``split`` knob (FlagPerf's "998,1,1": train, validation, test shares of the documents, in
order); the train documents make one token stream, the validation documents another, each cut
into non-overlapping ``max_seq_length + 1`` windows (inputs and next-token targets; windows
run across document boundaries, as PaddleNLP's GPT dataset does). The test share is not used.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from chipperf_runtime.training.textlm.shards import Windows, require_data_dir, unusable
from chipperf_runtime.training.textlm.tokens import TokenDataset

LAYOUT = ("(layout: <prefix>_ids.npy, a 1-D token array, beside <prefix>_idx.npz holding "
          "'lens' (sentence token counts) and 'docs' (document starts); see the case README"
          ")")
IDS, IDX = "_ids.npy", "_idx.npz"


def prefixes(data_dir: Path) -> list[Path]:
    """The ``<prefix>`` paths of every ``<prefix>_idx.npz`` in ``data_dir``."""
    return [p.with_name(p.name[:-len(IDX)]) for p in sorted(data_dir.glob(f"*{IDX}"))]


def parse_split(split: str) -> tuple[float, float, float]:
    """"998,1,1" -> the train, validation and test shares (summing to 1)."""
    try:
        parts = [float(p) for p in str(split).split(",")]
    except ValueError:
        parts = []
    if len(parts) != 3 or min(parts) < 0 or sum(parts) <= 0:
        raise ValueError(f"split = {split!r}: give three non-negative weights 'train,valid,test' "
                         "such as FlagPerf's '998,1,1'")
    total = sum(parts)
    return parts[0] / total, parts[1] / total, parts[2] / total


def read_prefix(prefix: Path, problems: list[str]) -> tuple[np.ndarray, np.ndarray] | None:
    """(ids, token offset of each document boundary) of one prefix, or None with its problems."""
    ids_file, idx_file = Path(f"{prefix}{IDS}"), Path(f"{prefix}{IDX}")
    if not ids_file.is_file():
        problems.append(f"{idx_file} has no {ids_file.name} beside it")
        return None
    try:
        ids = np.load(ids_file, mmap_mode="r", allow_pickle=False)
        with np.load(idx_file, allow_pickle=False) as idx:
            lens = np.asarray(idx["lens"], dtype=np.int64) if "lens" in idx.files else None
            docs = np.asarray(idx["docs"], dtype=np.int64) if "docs" in idx.files else None
    except (OSError, ValueError) as exc:
        problems.append(f"{prefix}: not readable: {exc}")
        return None
    if ids.ndim != 1 or not np.issubdtype(ids.dtype, np.integer):
        problems.append(f"{ids_file}: expected a 1-D integer array, got shape {ids.shape} "
                        f"dtype {ids.dtype}")
        return None
    if lens is None or lens.ndim != 1 or (lens < 0).any() or int(lens.sum()) > len(ids):
        problems.append(f"{idx_file}: 'lens' must be the sentences' token counts, summing to at "
                        f"most the {len(ids)} ids of {ids_file.name}")
        return None
    ends = np.concatenate([[0], np.cumsum(lens)])
    docs = np.arange(len(lens) + 1) if docs is None else docs
    if docs.ndim != 1 or len(docs) < 2 or (np.diff(docs) < 0).any() or docs[0] != 0 \
            or docs[-1] > len(lens):
        problems.append(f"{idx_file}: 'docs' must rise from 0 to at most the {len(lens)} "
                        "sentences of 'lens'")
        return None
    return ids, ends[docs]


def split_streams(ids: np.ndarray, ends: np.ndarray,
                  shares: tuple[float, float, float]) -> tuple[np.ndarray, np.ndarray]:
    """(train tokens, validation tokens): the documents (``ends``: their token boundaries)
    cut by ``shares``, in order."""
    n = len(ends) - 1
    train_docs = int(round(shares[0] * n))
    valid_docs = int(round((shares[0] + shares[1]) * n)) - train_docs
    cut, stop = int(ends[train_docs]), int(ends[train_docs + valid_docs])
    return ids[:cut], ids[cut:stop]


def open_dataset(data_dir: Path, seq_len: int, vocab_size: int, split: str,
                 prepare: str) -> TokenDataset:
    """The train and validation windows of every prefix in ``data_dir``; a DataError listing
    every problem otherwise (a missing folder says how to make one with ``prepare``)."""
    data_dir = require_data_dir(Path(data_dir), f"{prepare} --output DIR")
    problems: list[str] = []
    try:
        shares = parse_split(split)
    except ValueError as exc:
        problems.append(str(exc))
        shares = (1.0, 0.0, 0.0)
    found = prefixes(data_dir)
    if not found:
        problems.append(f"{data_dir} holds no <prefix>{IDX}")
    pairs = [p for p in (read_prefix(prefix, problems) for prefix in found) if p is not None]
    streams = [split_streams(ids, ends, shares) for ids, ends in pairs]
    train = Windows.of([t for t, _ in streams], seq_len)
    held = Windows.of([v for _, v in streams], seq_len)
    if not problems and (len(train) == 0 or len(held) == 0):
        problems.append(f"split {split!r} leaves {len(train)} train and {len(held)} validation "
                        f"windows of max_seq_length + 1 = {seq_len + 1} tokens: both need one; "
                        "give the validation share more documents, or a shorter max_seq_length")
    if problems:
        raise unusable("paddlenlp-ids", data_dir, problems, LAYOUT)
    return TokenDataset(train, held, vocab_size)


def write_dataset(output: Path, prefix: str, documents: list[np.ndarray]) -> dict[str, int]:
    """``<output>/<prefix>_ids.npy`` and ``_idx.npz`` from tokenised documents (the layout
    above, one sentence per document); returns the counts."""
    output.mkdir(parents=True, exist_ok=True)
    ids = np.concatenate(documents).astype(np.uint16) if documents else np.zeros(0, np.uint16)
    lens = np.asarray([len(d) for d in documents], dtype=np.int64)
    np.save(output / f"{prefix}{IDS}", ids)
    np.savez(output / f"{prefix}{IDX}", lens=lens, docs=np.arange(len(lens) + 1))
    return {"documents": len(documents), "tokens": int(len(ids))}
