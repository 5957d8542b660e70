"""FlagPerf's transformer_xl data: WikiText-103 as Hugging Face ``datasets`` caches it, and the
transfo-xl-wt103 tokenizer's vocabulary.

``<data_dir>/data/wikitext-<split>.arrow`` (split: train, validation, test): an Arrow IPC
stream (``datasets``' cache format; the IPC file format is read too) with a string column
``text``, one line of the corpus a row. ``<data_dir>/model/vocab.pkl``: the word vocabulary
transformers' ``TransfoXLTokenizer`` saves, a pickled dict whose ``idx2sym`` lists the words
by id (read with an unpickler that builds nothing but built-in containers; any other object
in the file becomes an inert placeholder). ``<data_dir>/model/config.json``: the model's
transformers config.

Tokens: each line's whitespace-separated words then ``<eos>``, a word missing from the
vocabulary as ``<unk>`` (Transformer-XL's own WikiText-103 preparation; transformers' tokenizer
adds Moses punctuation rules that WikiText's already-tokenized text barely needs). numpy and
pyarrow only.
"""

from __future__ import annotations

import json
import pickle
from collections import Counter, OrderedDict
from pathlib import Path
from typing import Any, Iterable, Sequence

import numpy as np

from chipperf_runtime.training.driver import DataError

EOS, UNK = "<eos>", "<unk>"
SPLITS = ("train", "validation", "test")
SAFE = {("collections", "Counter"): Counter, ("collections", "OrderedDict"): OrderedDict}


def split_path(data_dir: Path, split: str) -> Path:
    return Path(data_dir) / "data" / f"wikitext-{split}.arrow"


class Inert:
    """What the vocabulary unpickler makes of any class it does not allow."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        pass

    def __setstate__(self, state: Any) -> None:
        pass


class VocabUnpickler(pickle.Unpickler):
    def find_class(self, module: str, name: str) -> Any:
        return SAFE.get((module, name), Inert)


def read_vocab(path: Path) -> dict[str, int]:
    """word -> id from transformers' ``vocab.pkl`` (``idx2sym``); ``<eos>`` and ``<unk>``
    must be in it."""
    if not path.is_file():
        raise DataError(f"{path}: no vocabulary (the transfo-xl-wt103 tokenizer's vocab.pkl)")
    with path.open("rb") as f:
        state = VocabUnpickler(f).load()
    words = state.get("idx2sym") if isinstance(state, dict) else None
    if not isinstance(words, list):
        raise DataError(f"{path}: not a TransfoXLTokenizer vocabulary (no idx2sym list)")
    vocab = {w: i for i, w in enumerate(words)}
    missing = [w for w in (EOS, UNK) if w not in vocab]
    if missing:
        raise DataError(f"{path}: the vocabulary has no {' or '.join(missing)}")
    return vocab


def write_vocab(path: Path, words: Sequence[str]) -> None:
    """A ``vocab.pkl`` as transformers' tokenizer saves one (for generated data and tests)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    state = {"idx2sym": list(words), "sym2idx": OrderedDict((w, i) for i, w in enumerate(words))}
    path.write_bytes(pickle.dumps(state))


def read_config(model_dir: Path) -> dict[str, Any]:
    path = model_dir / "config.json"
    if not path.is_file():
        raise DataError(f"{path}: no model config (transfo-xl-wt103's config.json)")
    return json.loads(path.read_text())


def import_pyarrow() -> Any:
    try:
        import pyarrow
        import pyarrow.ipc  # noqa: F401 - the submodule read_lines uses
    except ImportError as err:
        raise DataError("reading WikiText's .arrow files needs pyarrow (pip install pyarrow; "
                        "the images pin it)") from err
    return pyarrow


def read_lines(path: Path) -> list[str]:
    """The ``text`` column of one ``datasets`` Arrow file."""
    if not path.is_file():
        raise DataError(f"{path}: missing (FlagPerf's layout: data/wikitext-<split>.arrow)")
    pa = import_pyarrow()
    try:
        table = pa.ipc.open_stream(path).read_all()
    except pa.ArrowInvalid:
        try:
            table = pa.ipc.open_file(path).read_all()
        except pa.ArrowInvalid as err:
            raise DataError(f"{path}: not an Arrow IPC stream or file: {err}") from err
    if "text" not in table.column_names:
        raise DataError(f"{path}: no 'text' column (columns: {', '.join(table.column_names)})")
    return [line or "" for line in table.column("text").to_pylist()]


def write_lines(path: Path, lines: Iterable[str]) -> None:
    """An Arrow IPC stream with one string column ``text``, as ``datasets`` caches a split."""
    pa = import_pyarrow()
    table = pa.table({"text": pa.array(list(lines), type=pa.string())})
    path.parent.mkdir(parents=True, exist_ok=True)
    with pa.ipc.new_stream(path, table.schema) as writer:
        writer.write_table(table)


def encode(lines: Iterable[str], vocab: dict[str, int]) -> np.ndarray:
    """One int32 token stream: each line's words then ``<eos>``."""
    unk, eos = vocab[UNK], vocab[EOS]
    ids = [i for line in lines for i in (*(vocab.get(w, unk) for w in line.split()), eos)]
    return np.asarray(ids, dtype=np.int32)


def read_split(data_dir: Path, split: str, vocab: dict[str, int]) -> np.ndarray:
    if split not in SPLITS:
        raise DataError(f"split {split!r} is not one of WikiText's {', '.join(SPLITS)}")
    return encode(read_lines(split_path(data_dir, split)), vocab)
