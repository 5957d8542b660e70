"""Writes the dlrm CI data set in DLE's split-binary Criteo layout (dlrm_data.py): 13
numerical features (float16, log(1 + x) of exponential draws) and 26 categorical ones of 3-40
values, clicks drawn from a logistic model of a few of them, so the features predict the click
(the Bayes AUC is well above 0.5).

    python3 prepare_data.py --output DIR [--train 32768 --val 4096]
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import yaml

NUMERICAL, TABLES = 13, 26


def int_type(cardinality: int) -> str:
    return next(t for t in ("int8", "int16", "int32") if cardinality <= np.iinfo(t).max)


def feature_spec(cardinalities: list[int], splits: tuple[str, ...]) -> dict:
    cats = [f"cat_{i}.bin" for i in range(TABLES)]
    nums = [f"num_{i}" for i in range(NUMERICAL)]
    features = {n: {"dtype": "float16"} for n in nums}
    features.update({c: {"cardinality": k, "dtype": int_type(k)} for c, k in zip(cats, cardinalities)})
    features["label"] = {"dtype": "bool"}
    sources = {split: [{"features": nums, "files": [f"{split}/numerical.bin"], "type": "split_binary"},
                       {"features": ["label"], "files": [f"{split}/label.bin"], "type": "split_binary"}]
               + [{"features": [c], "files": [f"{split}/{c}"], "type": "split_binary"} for c in cats]
               for split in splits}
    return {"channel_spec": {"categorical": cats, "numerical": nums, "label": ["label"]},
            "feature_spec": features, "source_spec": sources, "metadata": {}}


def write_split(out: Path, split: str, count: int, cardinalities: list[int],
                effects: list[np.ndarray], weights: np.ndarray, rng: np.random.Generator) -> None:
    (out / split).mkdir(parents=True, exist_ok=True)
    numerical = np.log1p(rng.exponential(3.0, size=(count, NUMERICAL)))
    cats = [rng.integers(0, k, size=count) for k in cardinalities]
    logit = (numerical - 1.2) @ weights + sum(e[c] for e, c in zip(effects, cats))
    click = rng.random(count) < 1 / (1 + np.exp(-logit))
    numerical.astype(np.float16).tofile(out / split / "numerical.bin")
    click.tofile(out / split / "label.bin")
    for i, (column, k) in enumerate(zip(cats, cardinalities)):
        column.astype(int_type(k)).tofile(out / split / f"cat_{i}.bin")


def prepare(out: Path, train: int = 32768, val: int = 4096) -> Path:
    rng = np.random.default_rng(29)
    cardinalities = [int(k) for k in rng.integers(3, 41, size=TABLES)]
    weights = rng.normal(0, 1.0, NUMERICAL) * (rng.random(NUMERICAL) < 0.4)
    effects = [rng.normal(0, 1.5 if i < 6 else 0.0, k) for i, k in enumerate(cardinalities)]
    out.mkdir(parents=True, exist_ok=True)
    spec = feature_spec(cardinalities, ("train", "validation"))
    (out / "feature_spec.yaml").write_text(yaml.safe_dump(spec))
    write_split(out, "train", train, cardinalities, effects, weights, rng)
    write_split(out, "validation", val, cardinalities, effects, weights, rng)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--output", type=Path, required=True)
    parser.add_argument("--train", type=int, default=32768)
    parser.add_argument("--val", type=int, default=4096)
    args = parser.parse_args()
    prepare(args.output, args.train, args.val)


if __name__ == "__main__":
    main()
