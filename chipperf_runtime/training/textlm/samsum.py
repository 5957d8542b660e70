"""FlagPerf's llama2_7b_finetune data: the SAMSum dialogue-summary corpus, read in FlagPerf's
layout and turned into causal-LM token windows with FlagPerf's prompt.

Layout (FlagPerf's README: samsum's ``corpus.7z`` unpacked into a folder named
``samsum_dataset`` under the case's data directory)::

    <data_dir>/samsum_dataset/train.json   [{"id": str, "dialogue": str, "summary": str}, ...]
    <data_dir>/samsum_dataset/val.json     same, the validation split (FlagPerf's eval split)
    <data_dir>/samsum_dataset/test.json    not read

Each sample becomes FlagPerf's text ``"Summarize this dialog:\\n{dialogue}\\n---\\nSummary:\\n
{summary}"`` + EOS; the samples are tokenised and concatenated into one stream per split, cut
into ``seq_len + 1`` windows (FlagPerf's ``Concatenator``: labels are the inputs, shifted by
the model). Tokeniser: ``textlm.bytelevel``'s byte-fallback ids of the Llama 2 vocabulary
(``<s>`` + UTF-8 bytes + ``</s>``), which needs no tokenizer file; FlagPerf tokenises with the
Llama 2 SentencePiece model, so a sample is more tokens here (the work per token is the same).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from chipperf_runtime.training.textlm import bytelevel
from chipperf_runtime.training.textlm.shards import Windows, require_data_dir, unusable
from chipperf_runtime.training.textlm.tokens import TokenDataset

FOLDER = "samsum_dataset"
SPLITS = {"train": "train.json", "eval": "val.json"}
PROMPT = "Summarize this dialog:\n{dialogue}\n---\nSummary:\n{summary}"
LAYOUT = (f"(layout: {FOLDER}/train.json and {FOLDER}/val.json, each a JSON list of "
          "{\"dialogue\", \"summary\"} objects: samsum's corpus.7z unpacked; see the README)")


def open_samsum(data_dir: Path, seq_len: int, vocab_size: int, prepare: str) -> TokenDataset:
    """The train and eval windows; a DataError naming every problem otherwise."""
    data_dir = require_data_dir(data_dir, f"{prepare} --output DIR")
    problems: list[str] = []
    streams = {split: _stream(data_dir / FOLDER / name, problems)
               for split, name in SPLITS.items()}
    windows = {split: Windows.of([s], seq_len) for split, s in streams.items() if s is not None}
    for split, w in windows.items():
        if len(w) == 0:
            problems.append(f"{FOLDER}/{SPLITS[split]} holds fewer than seq_len + 1 = "
                            f"{seq_len + 1} tokens")
    if problems:
        raise unusable("samsum", data_dir, problems, LAYOUT)
    return TokenDataset(windows["train"], windows["eval"], vocab_size)


def _stream(path: Path, problems: list[str]) -> np.ndarray | None:
    if not path.is_file():
        problems.append(f"{path} is missing")
        return None
    try:
        samples = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as err:
        problems.append(f"{path}: not readable JSON ({err})")
        return None
    bad = _bad_sample(samples)
    if bad is not None:
        problems.append(f"{path}: {bad}")
        return None
    return np.concatenate([bytelevel.encode(text(s)) for s in samples])


def _bad_sample(samples: Any) -> str | None:
    if not isinstance(samples, list) or not samples:
        return "must be a non-empty JSON list of samples"
    for index, sample in enumerate(samples):
        if not isinstance(sample, dict) or not all(
                isinstance(sample.get(k), str) for k in ("dialogue", "summary")):
            return f"sample {index} lacks a string \"dialogue\" or \"summary\""
    return None


def text(sample: dict[str, str]) -> str:
    """FlagPerf's prompt for one sample (``bytelevel.encode`` adds BOS and EOS)."""
    return PROMPT.format(dialogue=sample["dialogue"], summary=sample["summary"])


# ---------------------------------------------------------------- generated data (CI)

NAMES = ("Amanda", "Jerry", "Olivia", "Tom", "Hannah", "Eric", "Lena", "Paul", "Maya", "Sam")
ITEMS = ("cookies", "the tickets", "a cake", "the keys", "some coffee", "the book", "pizza",
         "the charger", "flowers", "the slides")
DAYS = ("today", "tomorrow", "on Monday", "on Friday", "tonight", "at noon")


def generated(count: int, seed: int) -> list[dict[str, str]]:
    """``count`` SAMSum-shaped samples from one dialogue template with seeded names, items and
    days: real structure a small model learns, no text downloaded."""
    rng = np.random.default_rng(seed)
    samples = []
    for index in range(count):
        a, b = rng.choice(NAMES, size=2, replace=False)
        item, day = rng.choice(ITEMS), rng.choice(DAYS)
        dialogue = (f"{a}: Hi {b}! I have {item} for you.\n{b}: Great, thanks! When?\n"
                    f"{a}: I will bring {item} {day}.\n{b}: Perfect, see you {day}.")
        summary = f"{a} will bring {item} to {b} {day}."
        samples.append({"id": f"generated-{seed}-{index}", "dialogue": dialogue,
                        "summary": summary})
    return samples


def write_generated(output: Path, train: int, val: int, seed: int) -> None:
    """FlagPerf's layout (module doc) under ``output`` with generated samples."""
    folder = output / FOLDER
    folder.mkdir(parents=True, exist_ok=True)
    for name, count, offset in (("train.json", train, 0), ("val.json", val, 1),
                                ("test.json", val, 2)):
        (folder / name).write_text(json.dumps(generated(count, seed + offset), indent=1) + "\n",
                                   encoding="utf-8")
