"""Build the glm case's CI data: generated multiple-choice cloze samples in FlagPerf glm's
ReCoRD layout (HDF5 files of h5sparse CSR matrices; ``hftext/record.py``).

    python3 prepare_data.py --output DIR [--train 2048] [--eval 256] [--seed 0]

Writes ``DIR/ReCoRD/glm_train_eval_hdf5_sparse/{train_hdf5/train_sparse.hdf5,
eval_hdf5/eval_sparse.hdf5}`` and ``DIR/meta.json``. The tokens are not text. A sample's
passage is a ``textlm.generated.topic_stream`` run about one id (80 % of its 24 tokens are
that id); part A is [CLS] passage [MASK], part B a candidate's span after [sop], scored
against the span's tokens then [eop], with GLM's 2-D positions (the span at the blank's
position, counted 1, 2, ... inside it). The correct candidate is the passage's id (once or
twice), the others 2-4 other ids (once or twice each): only the passage tells them apart.
Training samples list the correct candidate first (FlagPerf's label 0); evaluation samples
in random order, with answer_idx. Nothing is downloaded. Needs numpy, scipy and h5py.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

REPO = str(Path(__file__).resolve().parents[4])
if REPO not in sys.path:
    sys.path.insert(1, REPO)  # chipperf_runtime's textlm (run as a script on the host, not launched)
from chipperf_runtime.training.textlm.generated import topic_stream  # noqa: E402

PAD, CLS, MASK, SOP, EOP = 0, 1, 2, 3, 4
IDS = range(8, 128)
PASSAGE, WIDTH = 24, 32
TRAIN_FILE = "ReCoRD/glm_train_eval_hdf5_sparse/train_hdf5/train_sparse.hdf5"
EVAL_FILE = "ReCoRD/glm_train_eval_hdf5_sparse/eval_hdf5/eval_sparse.hdf5"


def candidate_rows(part_a: np.ndarray, span: list[int]) -> tuple[np.ndarray, ...]:
    """(text, position, block position, target, logit mask) rows of one candidate."""
    sep, blank = len(part_a), len(part_a) - 1
    text, target, scored = (np.zeros(WIDTH, np.int64) for _ in range(3))
    position, block = np.zeros(WIDTH, np.int64), np.zeros(WIDTH, np.int64)
    tokens = [SOP, *span]
    text[:sep], text[sep:sep + len(tokens)] = part_a, tokens
    position[:sep], position[sep:sep + len(tokens)] = np.arange(sep), blank
    block[sep:sep + len(tokens)] = np.arange(1, len(tokens) + 1)
    target[sep:sep + len(tokens)], scored[sep:sep + len(tokens)] = [*span, EOP], 1
    return text, position, block, target, scored


def sample(rng: np.random.Generator) -> tuple[np.ndarray, list[list[int]]]:
    """Part A and the candidates' spans, the correct one first."""
    passage = topic_stream(PASSAGE, IDS, PASSAGE, rng)
    topic = int(np.bincount(passage).argmax())
    others = rng.choice([i for i in IDS if i != topic], size=int(rng.integers(2, 5)), replace=False)
    spans = [[topic] * int(rng.integers(1, 3))] + [[int(o)] * int(rng.integers(1, 3)) for o in others]
    return np.asarray([CLS, *passage, MASK]), spans


def split(count: int, shuffle: bool, rng: np.random.Generator) -> dict[str, np.ndarray]:
    keys = ("text", "position", "target", "logit_mask")
    rows: dict[str, list[np.ndarray]] = {k: [] for k in keys}
    sep, bounds, answer_bounds, answers = [], [], [], []
    for _ in range(count):
        part_a, spans = sample(rng)
        order = rng.permutation(len(spans)) if shuffle else np.arange(len(spans))
        bounds.append((len(sep), len(sep) + len(spans)))
        for i in order:
            text, position, block, target, scored = candidate_rows(part_a, spans[i])
            rows["text"].append(text)
            rows["position"] += [position, block]
            rows["target"].append(target)
            rows["logit_mask"].append(scored)
            sep.append(len(part_a))
        answer_bounds.append((len(answers), len(answers) + 1))
        answers.append(int(np.flatnonzero(order == 0)[0]))
    out = {k: np.stack(v) for k, v in rows.items()}
    out.update(mask=np.asarray(sep)[:, None], choice_start_end=np.asarray(bounds),
               answer_start_end=np.asarray(answer_bounds), answer_idx=np.asarray(answers)[:, None])
    return out


def write_h5sparse(file: Path, arrays: dict[str, np.ndarray]) -> None:
    """Each array as h5sparse writes a CSR matrix (FlagPerf reads every key through it)."""
    import h5py
    from scipy.sparse import csr_matrix

    file.parent.mkdir(parents=True, exist_ok=True)
    with h5py.File(file, "w") as f:
        for key, array in arrays.items():
            matrix = csr_matrix(array)
            group = f.create_group(key)
            group.attrs["h5sparse_format"], group.attrs["h5sparse_shape"] = "csr", matrix.shape
            for part in ("data", "indices", "indptr"):
                group.create_dataset(part, data=getattr(matrix, part))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--output", type=Path, required=True)
    parser.add_argument("--train", type=int, default=2048)
    parser.add_argument("--eval", type=int, default=256)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    rng = np.random.default_rng(args.seed)
    write_h5sparse(args.output / TRAIN_FILE, split(args.train, False, rng))
    write_h5sparse(args.output / EVAL_FILE, split(args.eval, True, rng))
    meta = {"layout": "FlagPerf glm ReCoRD (h5sparse HDF5)",
            "made_by": "training/benchmarks/glm/pytorch/prepare_data.py",
            "generator": "topic passages, the correct candidate the passage's id",
            "ids": [IDS.start, IDS.stop - 1], "width": WIDTH, "train_samples": args.train,
            "eval_samples": args.eval, "seed": args.seed}
    (args.output / "meta.json").write_text(json.dumps(meta, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
