"""FlagPerf's gpt2 data folder, read as it is laid out (FlagPerf's gpt2 README):

    <data_dir>/lambada_train_text_document.idx, .bin   Megatron mmap dataset (textlm.megatron)
    <data_dir>/lambada_test.json       one JSON object a line, its "text" the passage
    <data_dir>/gpt2-vocab.json, gpt2-merges.txt        GPT-2's byte-level BPE

Training windows come from the ``.bin`` token stream; the eval split is ``eval/*.npy`` token
shards when the folder has them, else ``lambada_test.json``'s passages tokenised with the
folder's GPT-2 BPE (Hugging Face ``tokenizers``), each followed by ``<|endoftext|>``.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from chipperf_runtime.training.textlm import megatron, tokens

EVAL_TEXT = "lambada_test.json"
VOCAB, MERGES = "gpt2-vocab.json", "gpt2-merges.txt"
LAYOUT = (f"(layout: <prefix>.idx + <prefix>.bin, and eval/*.npy or {EVAL_TEXT} with {VOCAB} "
          f"and {MERGES}; see the gpt2 README)")


def is_flagperf_layout(data_dir: Path) -> bool:
    return bool(megatron.prefixes(data_dir))


def open_dataset(data_dir: Path, seq_len: int, vocab_size: int) -> tokens.TokenDataset:
    """The train stream of the folder's Megatron datasets and its eval split
    (``tokens.open_megatron``); a DataError listing every problem otherwise."""
    return tokens.open_megatron(data_dir, seq_len, vocab_size, "gpt2 (FlagPerf layout)",
                                held_out=eval_stream, layout=LAYOUT)


def eval_stream(data_dir: Path, problems: list[str]) -> np.ndarray | None:
    """eval/*.npy, else lambada_test.json tokenised; a problem when there is neither."""
    if (data_dir / "eval").is_dir():
        return tokens.eval_shards(data_dir, problems)
    missing = [n for n in (EVAL_TEXT, VOCAB, MERGES) if not (data_dir / n).is_file()]
    if missing:
        problems.append(f"no eval/ folder and no {', '.join(missing)} to make the eval split from")
        return None
    return tokenised_passages(data_dir)


def tokenised_passages(data_dir: Path) -> np.ndarray:
    """lambada_test.json's passages, GPT-2 BPE ids, each followed by <|endoftext|>."""
    from tokenizers import ByteLevelBPETokenizer

    bpe = ByteLevelBPETokenizer(str(data_dir / VOCAB), str(data_dir / MERGES))
    end = bpe.token_to_id("<|endoftext|>")
    lines = (data_dir / EVAL_TEXT).read_text(encoding="utf-8").splitlines()
    texts = [json.loads(line)["text"] for line in lines if line.strip()]
    ids = [[*encoding.ids, end] for encoding in bpe.encode_batch(texts)]
    return np.concatenate([np.asarray(i, dtype=np.int64) for i in ids])
