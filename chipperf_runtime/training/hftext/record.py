"""FlagPerf glm's SuperGLUE ReCoRD data, read as FlagPerf lays it out (its
``dataloaders/dataloader.py``): two HDF5 files of GLM's multiple-choice cloze samples, already
tokenised with GLM's vocabulary, every matrix stored by ``h5sparse`` (a group holding a CSR
matrix's ``data``, ``indices`` and ``indptr``, with ``h5sparse_format`` and ``h5sparse_shape``
attributes; a plain dataset is read too)::

    <data_dir>/<train_data>   ReCoRD/glm_train_eval_hdf5_sparse/train_hdf5/train_sparse.hdf5
    <data_dir>/<eval_data>    ReCoRD/glm_train_eval_hdf5_sparse/eval_hdf5/eval_sparse.hdf5

    text, target, logit_mask   [candidates, width]: one row per candidate sequence (the
                               passage and query with the blank, then the candidate's span),
                               the span's target ids and where they are scored
    position                   [2 x candidates, width]: rows 2c and 2c+1 are candidate c's
                               positions and positions inside the span
    mask                       [candidates]: where part B (the span) starts (GLM's ``sep``)
    choice_start_end           [samples, 2]: each sample's candidate rows
    answer_start_end, answer_idx   (eval) each sample's correct candidates, as indices into
                               its own candidates

A training sample's correct candidate is its first (FlagPerf trains with label 0). A batch
pads every sample to the batch's most candidates by repeating its first one, masked out
(FlagPerf's ``my_collate``). Needs h5py and scipy.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from chipperf_runtime.training.textlm.shards import require_data_dir, unusable

ROW_KEYS = ("text", "position", "target", "logit_mask")
KEYS = (*ROW_KEYS, "mask", "choice_start_end")
ANSWER_KEYS = ("answer_start_end", "answer_idx")
LAYOUT = ("(layout: FlagPerf glm's ReCoRD HDF5 files, keys " + ", ".join(KEYS + ANSWER_KEYS)
          + "; see the glm README)")


@dataclass(frozen=True)
class ClozeBatch:
    """Dense arrays of ``samples`` samples x ``choices`` candidates x ``width`` tokens."""

    input_ids: np.ndarray        # [b, c, w]
    position_ids: np.ndarray     # [b, c, 2, w]
    sep: np.ndarray              # [b, c]
    target_ids: np.ndarray       # [b, c, w]
    logit_mask: np.ndarray       # [b, c, w]
    choice_mask: np.ndarray      # [b, c]: 1 for a sample's own candidates, 0 for padding
    answers: np.ndarray | None   # [b, c] bool: the correct candidates (eval split)


@dataclass(frozen=True)
class ChoiceSplit:
    rows: dict[str, Any]         # ROW_KEYS -> scipy CSR matrix
    sep: np.ndarray              # [candidates]
    bounds: np.ndarray           # [samples, 2]
    answers: tuple[np.ndarray, ...] | None

    def __len__(self) -> int:
        return len(self.bounds)

    @property
    def width(self) -> int:
        return int(self.rows["text"].shape[1])

    def mean_choices(self) -> float:
        return float((self.bounds[:, 1] - self.bounds[:, 0]).mean())

    def batch(self, samples: np.ndarray) -> ClozeBatch:
        counts = self.bounds[samples, 1] - self.bounds[samples, 0]
        choices = int(counts.max())
        own = np.arange(choices)[None, :] < counts[:, None]
        rows = np.where(own, self.bounds[samples, :1] + np.arange(choices)[None, :],
                        self.bounds[samples, :1])
        flat, shape = rows.ravel(), (*rows.shape, self.width)

        def dense(key: str, index: np.ndarray) -> np.ndarray:
            return self.rows[key][index].toarray().astype(np.int64)
        positions = dense("position", np.stack([2 * flat, 2 * flat + 1], axis=1).ravel())
        answers = None
        if self.answers is not None:
            answers = np.zeros(rows.shape, dtype=bool)
            for i, sample in enumerate(samples):
                answers[i, self.answers[sample]] = True
        return ClozeBatch(dense("text", flat).reshape(shape),
                          positions.reshape(rows.shape[0], choices, 2, self.width),
                          self.sep[rows], dense("target", flat).reshape(shape),
                          dense("logit_mask", flat).reshape(shape), own.astype(np.int64), answers)


@dataclass(frozen=True)
class RecordData:
    train: ChoiceSplit
    eval: ChoiceSplit
    root: Path                   # the data dir (GLM's checkpoint is named relative to it)


def open_dataset(data_dir: Path, train_file: str, eval_file: str, vocab_size: int,
                 max_positions: int, prepare: str) -> RecordData:
    """Both splits, checked; a DataError listing every problem otherwise."""
    data_dir = require_data_dir(data_dir, f"{prepare} --output DIR")
    problems: list[str] = []
    train = read_split(data_dir / train_file, False, problems)
    held_out = read_split(data_dir / eval_file, True, problems)
    for split in (s for s in (train, held_out) if s is not None):
        problems += value_problems(split, vocab_size, max_positions)
    if problems or train is None or held_out is None:
        raise unusable("glm (FlagPerf ReCoRD)", data_dir, problems, LAYOUT)
    return RecordData(train, held_out, data_dir)


def read_matrix(item: Any) -> Any:
    """An h5sparse group as a CSR matrix, a plain dataset as an array."""
    import h5py
    from scipy.sparse import csr_matrix

    if isinstance(item, h5py.Group):
        parts = (item["data"][()], item["indices"][()], item["indptr"][()])
        return csr_matrix(parts, shape=tuple(int(n) for n in item.attrs["h5sparse_shape"]))
    return item[()]


def dense_vector(matrix: Any) -> np.ndarray:
    return np.asarray(matrix.toarray() if hasattr(matrix, "toarray") else matrix).astype(np.int64)


def read_split(file: Path, with_answers: bool, problems: list[str]) -> ChoiceSplit | None:
    """One HDF5 file's split; None (and its problems) when it cannot be used."""
    if not file.is_file():
        problems.append(f"{file} is missing")
        return None
    import h5py
    from scipy.sparse import csr_matrix

    wanted = KEYS + (ANSWER_KEYS if with_answers else ())
    with h5py.File(file, "r") as f:
        missing = [k for k in wanted if k not in f]
        if missing:
            problems.append(f"{file} lacks {', '.join(missing)}")
            return None
        found = {k: read_matrix(f[k]) for k in wanted}
    rows = {k: csr_matrix(found[k]) for k in ROW_KEYS}
    split = ChoiceSplit(rows, dense_vector(found["mask"]).reshape(-1),
                        dense_vector(found["choice_start_end"]).reshape(-1, 2),
                        answer_sets(found) if with_answers else None)
    shape_problems = [f"{file}: {p}" for p in layout_problems(split, found)]
    problems += shape_problems
    return None if shape_problems else split


def answer_sets(found: dict[str, Any]) -> tuple[np.ndarray, ...]:
    bounds = dense_vector(found["answer_start_end"]).reshape(-1, 2)
    index = dense_vector(found["answer_idx"]).reshape(-1)
    return tuple(index[start:end] for start, end in bounds)


def layout_problems(split: ChoiceSplit, found: dict[str, Any]) -> list[str]:
    """Shapes that disagree with each other (every one found)."""
    candidates, width = split.rows["text"].shape
    problems = [f"{k} has shape {split.rows[k].shape}, text {(candidates, width)}"
                for k in ("target", "logit_mask") if split.rows[k].shape != (candidates, width)]
    if split.rows["position"].shape != (2 * candidates, width):
        problems.append(f"position has shape {split.rows['position'].shape}: want two rows per "
                        f"candidate, {(2 * candidates, width)}")
    if len(split.sep) != candidates:
        problems.append(f"mask has {len(split.sep)} entries for {candidates} candidates")
    starts, ends = split.bounds[:, 0], split.bounds[:, 1]
    if len(split.bounds) == 0 or (starts < 0).any() or (ends > candidates).any() or (ends <= starts).any():
        problems.append(f"choice_start_end must hold samples of one or more of the {candidates} "
                        "candidate rows")
    if split.answers is not None:
        problems += answer_problems(split)
    return problems


def answer_problems(split: ChoiceSplit) -> list[str]:
    assert split.answers is not None
    if len(split.answers) != len(split.bounds):
        return [f"answer_start_end has {len(split.answers)} samples, choice_start_end "
                f"{len(split.bounds)}"]
    counts = split.bounds[:, 1] - split.bounds[:, 0]
    bad = [i for i, (a, n) in enumerate(zip(split.answers, counts)) if len(a) == 0 or (a >= n).any()]
    return [f"{len(bad)} samples (the first: {bad[0]}) have no answer or one beyond their "
            "candidates"] if bad else []


def value_problems(split: ChoiceSplit, vocab_size: int, max_positions: int) -> list[str]:
    problems = []
    for key, limit in (("text", vocab_size), ("target", vocab_size), ("position", max_positions + 1)):
        top = int(split.rows[key].max()) if split.rows[key].nnz else 0
        if top >= limit or (split.rows[key].nnz and split.rows[key].min() < 0):
            problems.append(f"{key} holds {top}: must be in 0..{limit - 1} (the model's "
                            f"{'vocabulary' if limit == vocab_size else 'position tables'})")
    return problems
