"""FlagPerf's cpm data folder, read as it is laid out (FlagPerf's cpm ``dataloaders/``)::

    <data_dir>/train.txt, valid.txt      raw text, one document a line
    <data_dir>/bpe_3w_new/vocab.json     CPM-1's vocabulary (piece -> id; ``<eod>``, ``<pad>``)
    <data_dir>/bpe_3w_new/chinese_vocab.model   its SentencePiece model

FlagPerf keeps ``bpe_3w_new/`` with its case code (``training/benchmarks/cpm/pytorch/
dataloaders/bpe_3w_new``), not with the data: copy that folder into the data dir, or set
``tokenizer_dir``. Each line is tokenised as CPM-1's tokenizer does: jieba's word segmentation
(accurate mode), spaces and newlines inside a word mapped to U+2582 and U+2583, the words
joined by spaces and encoded by the SentencePiece model; the document ends with ``<eod>``. The
documents of a split are one token stream, cut into ``seq_len + 1`` windows as every causal-LM
case's (``textlm.tokens``): FlagPerf instead cuts each document on its own and pads its last
window with ``<pad>`` (left out of its loss), so chipperf's windows run across documents and
hold no padding.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from chipperf_runtime.training.driver import DataError
from chipperf_runtime.training.textlm import tokens
from chipperf_runtime.training.textlm.shards import Windows, unusable

SPLITS = {"train": "train.txt", "eval": "valid.txt"}
TOKENIZER_DIR = "bpe_3w_new"
VOCAB, MODEL = "vocab.json", "chinese_vocab.model"
LAYOUT = (f"(layout: train.txt and valid.txt, one document a line, and CPM-1's tokenizer in "
          f"{TOKENIZER_DIR}/ ({VOCAB}, {MODEL}: FlagPerf's cpm/pytorch/dataloaders/{TOKENIZER_DIR}); "
          "see the cpm README)")
# spaces and newlines inside a jieba word, as CPM-1's tokenizer writes them
TRANSLATE = str.maketrans(" \n", "\u2582\u2583")


def is_flagperf_layout(data_dir: Path) -> bool:
    return (Path(data_dir) / SPLITS["train"]).is_file()


def open_dataset(data_dir: Path, seq_len: int, vocab_size: int,
                 tokenizer_dir: str | None = None) -> tokens.TokenDataset:
    """Both splits tokenised with CPM-1's tokenizer, as token windows; a DataError naming every
    missing file (or package) otherwise."""
    data_dir = Path(data_dir)
    folder = data_dir / (tokenizer_dir or TOKENIZER_DIR)
    problems = [f"{data_dir / name} is missing" for name in SPLITS.values()
                if not (data_dir / name).is_file()]
    problems += [f"{folder / name} is missing (copy FlagPerf's cpm/pytorch/dataloaders/"
                 f"{TOKENIZER_DIR}/ there, or set tokenizer_dir)" for name in (VOCAB, MODEL)
                 if not (folder / name).is_file()]
    if problems:
        raise unusable("cpm (FlagPerf layout)", data_dir, problems, LAYOUT)
    tokenizer = CpmTokenizer(folder)
    windows = {split: Windows.of([tokenizer.stream(data_dir / name)], seq_len)
               for split, name in SPLITS.items()}
    problems = [f"{data_dir / SPLITS[split]}: fewer than seq_len + 1 = {seq_len + 1} tokens"
                for split, w in windows.items() if len(w) == 0]
    top = max((int(s.max()) for w in windows.values() for s in w.shards if s.size), default=0)
    if top >= vocab_size:
        problems.append(f"token id {top} from {folder / MODEL} is not below the model's "
                        f"vocabulary ({vocab_size}): the tokenizer and model_size disagree")
    if problems:
        raise unusable("cpm (FlagPerf layout)", data_dir, problems, LAYOUT)
    return tokens.TokenDataset(windows["train"], windows["eval"], vocab_size)


class CpmTokenizer:
    """CPM-1's tokenizer (module doc): jieba, then the SentencePiece model of ``folder``."""

    def __init__(self, folder: Path):
        try:
            import jieba
            import sentencepiece
        except ImportError as exc:
            raise DataError(f"FlagPerf's cpm text needs jieba and sentencepiece ({exc}): pip "
                            "install jieba==0.42.1 sentencepiece==0.2.3 in the image") from exc
        jieba.setLogLevel(30)          # its dictionary-loading notes are not the case's output
        self.segment: Any = jieba.Tokenizer()
        self.pieces = sentencepiece.SentencePieceProcessor(model_file=str(folder / MODEL))
        vocab = json.loads((folder / VOCAB).read_text(encoding="utf-8"))
        if "<eod>" not in vocab:
            raise DataError(f"{folder / VOCAB} has no <eod> entry: not CPM-1's vocabulary")
        self.eod = int(vocab["<eod>"])

    def encode(self, text: str) -> list[int]:
        words = [w.translate(TRANSLATE) for w in self.segment.cut(text, cut_all=False)]
        return list(self.pieces.encode(" ".join(words)))

    def stream(self, path: Path) -> np.ndarray:
        """Every line of ``path`` tokenised, each followed by ``<eod>``, as one int32 array."""
        ids: list[int] = []
        with path.open(encoding="utf-8") as lines:
            for line in lines:
                ids += [*self.encode(line), self.eod]
        return np.asarray(ids, dtype=np.int32)
