"""FlagPerf's t5_small data folder: tokenised (source, target) pairs in two ``.npz`` files and
the tokenizer that made them, read with every problem reported at once.

    <data_dir>/dataset/train_dataset.npz   input_ids [N, S], attention_mask [N, S],
                                           labels [N, T] (-100 after each target's tokens)
    <data_dir>/dataset/eval_dataset.npz    the same arrays, held-out pairs
    <data_dir>/model/tokenizer.json        the tokenizer (Hugging Face ``tokenizers``), for decoding
    <data_dir>/model/model.safetensors     the starting weights (read only when asked for)

FlagPerf's folder (CNN/DailyMail tokenised by t5-small's tokenizer, S = 1024, T = 128) holds
more (``model/config.json``, ``metrics/``, ``nltk_data/``); this module reads only the above.
"""

from __future__ import annotations

import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping

import numpy as np

from chipperf_runtime.training.textlm.shards import require_data_dir, unusable

IGNORE = -100
ARRAYS = ("input_ids", "attention_mask", "labels")
SPLITS = {"train": "dataset/train_dataset.npz", "eval": "dataset/eval_dataset.npz"}
TOKENIZER = "model/tokenizer.json"
CHECKPOINT = "model/model.safetensors"
LAYOUT = ("expected layout (FlagPerf's t5_small folder):\n"
          "  dataset/train_dataset.npz, dataset/eval_dataset.npz: input_ids [N, S], "
          "attention_mask [N, S], labels [N, T] (-100 after the target)\n"
          f"  {TOKENIZER} (Hugging Face tokenizers)\n"
          f"  {CHECKPOINT} (the starting weights, when from_checkpoint is True)")


@dataclass(frozen=True)
class Pairs:
    """Tokenised (source, target) pairs, one per row."""

    input_ids: np.ndarray          # [N, S], padded
    attention_mask: np.ndarray     # [N, S], 1 on real source tokens
    labels: np.ndarray             # [N, T], IGNORE after the target

    def __len__(self) -> int:
        return len(self.input_ids)

    def take(self, index: np.ndarray) -> Pairs:
        return Pairs(self.input_ids[index], self.attention_mask[index], self.labels[index])


@dataclass(frozen=True)
class PairsData:
    root: Path
    train: Pairs
    eval: Pairs

    @property
    def source_len(self) -> int:
        return int(self.train.input_ids.shape[1])

    @property
    def target_len(self) -> int:
        return int(self.train.labels.shape[1])

    @property
    def tokenizer_file(self) -> Path:
        return self.root / TOKENIZER

    @property
    def checkpoint(self) -> Path:
        return self.root / CHECKPOINT


def open_pairs(data_dir: Path, vocab_size: int, prepare: str, need_checkpoint: bool,
               what: str) -> PairsData:
    """Open and check ``data_dir``; one DataError lists every problem (``what`` names the
    dataset in it, ``prepare`` the script that makes a CI folder)."""
    root = require_data_dir(data_dir, f"{prepare} --output DIR ({LAYOUT})")
    problems: list[str] = []
    splits = {name: read_split(root / rel, vocab_size, problems) for name, rel in SPLITS.items()}
    required = [TOKENIZER] + ([CHECKPOINT] if need_checkpoint else [])
    problems += [f"{root / rel} is missing" for rel in required if not (root / rel).is_file()]
    train, held_out = splits["train"], splits["eval"]
    if train is not None and held_out is not None:
        problems += width_problems(train, held_out)
    if problems or train is None or held_out is None:
        raise unusable(what, root, problems, LAYOUT)
    return PairsData(root, train, held_out)


def read_split(path: Path, vocab_size: int, problems: list[str]) -> Pairs | None:
    arrays = load_arrays(path, problems)
    if arrays is None:
        return None
    found = len(problems)
    problems += [f"{path}: {p}" for p in array_problems(arrays, vocab_size)]
    return Pairs(**arrays) if len(problems) == found else None


def load_arrays(path: Path, problems: list[str],
                names: tuple[str, ...] = ARRAYS) -> dict[str, np.ndarray] | None:
    """The ``names`` arrays of the .npz archive ``path``, or None with a problem."""
    if not path.is_file():
        problems.append(f"{path} is missing")
        return None
    try:
        with np.load(path, allow_pickle=False) as archive:
            missing = [name for name in names if name not in archive.files]
            if missing:
                problems.append(f"{path} lacks the arrays {', '.join(missing)} "
                                f"(it has {', '.join(archive.files) or 'none'})")
                return None
            return {name: archive[name] for name in names}
    except (OSError, ValueError, zipfile.BadZipFile) as err:
        problems.append(f"{path} is not a readable .npz archive ({err})")
        return None


def array_problems(arrays: Mapping[str, np.ndarray], vocab_size: int) -> list[str]:
    """Kinds, shapes and id ranges of one split's arrays."""
    bad = [f"{name} is not a 2-D integer array (dtype {a.dtype}, shape {a.shape})"
           for name, a in arrays.items() if a.ndim != 2 or a.dtype.kind not in "iu"]
    if bad:
        return bad
    ids, mask, labels = (arrays[name] for name in ARRAYS)
    problems = [] if len(ids) else ["input_ids has no rows"]
    if mask.shape != ids.shape:
        problems.append(f"attention_mask {mask.shape} differs from input_ids {ids.shape}")
    if len(labels) != len(ids):
        problems.append(f"labels has {len(labels)} rows, input_ids {len(ids)}")
    if ids.size and (ids.min() < 0 or ids.max() >= vocab_size):
        problems.append(f"input_ids hold ids outside [0, {vocab_size}) (the model's vocab_size)")
    targets = labels[labels != IGNORE]
    if targets.size and (targets.min() < 0 or targets.max() >= vocab_size):
        problems.append(f"labels hold ids outside [0, {vocab_size}) other than {IGNORE}")
    return problems


def width_problems(train: Pairs, held_out: Pairs) -> list[str]:
    shapes = {name: (split.input_ids.shape[1], split.labels.shape[1])
              for name, split in (("train", train), ("eval", held_out))}
    if shapes["train"] == shapes["eval"]:
        return []
    return [f"train and eval differ in (source, target) width: {shapes['train']} vs "
            f"{shapes['eval']}"]
