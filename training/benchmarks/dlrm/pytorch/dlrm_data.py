"""Criteo as DLE's DLRM preprocessing writes it (FlagPerf's dlrm layout, "split binary"):

    <data_dir>/feature_spec.yaml        channel_spec (categorical / numerical / label feature
                                        names), feature_spec (each one's dtype, cardinality),
                                        source_spec (per split: which files hold which features)
    <data_dir>/train/label.bin          bool, one per sample
    <data_dir>/train/numerical.bin      float16 [samples, 13] (already log(x + 1))
    <data_dir>/train/cat_<i>.bin        one integer per sample, the dtype feature_spec says
    <data_dir>/validation/...           the same (FlagPerf's eval_data)

Files are memory-mapped; a batch is read with one slice per file (``__getitems__``).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping, Sequence

import numpy as np
import torch
import yaml
from torch import Tensor
from torch.utils.data import Dataset

from chipperf_runtime.training.driver import DataError
from chipperf_runtime.training.driver.datadir import require_dir

LAYOUT = ("<data_dir>/feature_spec.yaml and <data_dir>/<split>/{label.bin, numerical.bin, "
          "cat_<i>.bin} as DLE's DLRM preprocessing writes them (split binary; "
          "training/benchmarks/dlrm/pytorch/README.md)")
Batch = tuple[np.ndarray, np.ndarray, np.ndarray]


@dataclass(frozen=True)
class FeatureSpec:
    numerical: list[str]
    categorical: list[str]
    label: str
    features: Mapping[str, Mapping[str, Any]]
    sources: Mapping[str, list[Mapping[str, Any]]]

    def cardinalities(self) -> list[int]:
        return [int(self.features[name]["cardinality"]) for name in self.categorical]


def read_spec(data_dir: Path) -> FeatureSpec:
    path = require_dir(data_dir, "dlrm data dir", LAYOUT) / "feature_spec.yaml"
    if not path.is_file():
        raise DataError(f"{path} does not exist; expected layout: {LAYOUT}")
    raw = yaml.safe_load(path.read_text())
    try:
        channels = raw["channel_spec"]
        spec = FeatureSpec(list(channels["numerical"]), list(channels["categorical"]),
                           channels["label"][0], raw["feature_spec"], raw["source_spec"])
        spec.cardinalities()
    except (KeyError, TypeError, IndexError, ValueError) as err:
        raise DataError(f"{path}: not DLE's feature spec ({err!r} missing or malformed); "
                        f"expected layout: {LAYOUT}") from err
    return spec


def split_files(spec: FeatureSpec, data_dir: Path, split: str) -> dict[str, Path]:
    """first feature of each chunk -> its file, for ``split``."""
    if split not in spec.sources:
        raise DataError(f"{data_dir / 'feature_spec.yaml'} has no split {split!r} in source_spec "
                        f"(it has {', '.join(spec.sources)})")
    files = {chunk["features"][0]: data_dir / chunk["files"][0] for chunk in spec.sources[split]}
    for path in files.values():
        if not path.is_file():
            raise DataError(f"{path} does not exist; expected layout: {LAYOUT}")
    return files


class Criteo(Dataset):
    """One split, memory-mapped."""

    def __init__(self, spec: FeatureSpec, data_dir: Path, split: str) -> None:
        files = split_files(spec, data_dir, split)
        self.label = np.memmap(files[spec.label], dtype=np.bool_, mode="r")
        samples = len(self.label)
        self.numerical = np.memmap(files[spec.numerical[0]], dtype=np.float16, mode="r",
                                   shape=(samples, len(spec.numerical)))
        self.categorical = [np.memmap(files[name], dtype=spec.features[name]["dtype"], mode="r")
                            for name in spec.categorical]
        for name, column in zip(spec.categorical, self.categorical):
            if len(column) != samples:
                raise DataError(f"{files[name]} holds {len(column)} values, {files[spec.label]} "
                                f"{samples} labels: the split's files disagree")

    def __len__(self) -> int:
        return len(self.label)

    def __getitem__(self, index: int) -> Batch:
        return self.__getitems__([index])

    def __getitems__(self, indices: Sequence[int]) -> Batch:
        """A batch: one slice per file when the indices are consecutive, else a gather."""
        rows: Any = slice(indices[0], indices[-1] + 1) \
            if indices[-1] - indices[0] == len(indices) - 1 else np.asarray(indices)
        cats = np.stack([column[rows] for column in self.categorical], axis=1)
        return self.numerical[rows], cats, self.label[rows]


def collate(batch: Batch) -> tuple[Tensor, ...]:
    numerical, categorical, label = batch
    return (torch.from_numpy(np.asarray(numerical, dtype=np.float32)),
            torch.from_numpy(categorical.astype(np.int64)),
            torch.from_numpy(np.asarray(label, dtype=np.float32)))


@dataclass(frozen=True)
class CriteoData:
    """A ``lossloop.data.CaseData``."""

    train: Criteo
    eval: Criteo
    cardinalities: list[int]

    @property
    def collate(self) -> Any:
        return collate

    def describe(self) -> dict[str, Any]:
        return {"train_samples": len(self.train), "eval_samples_in_split": len(self.eval),
                "embedding_rows": sum(self.cardinalities), "tables": len(self.cardinalities)}


def open_criteo(data_dir: Path, train_split: str, eval_split: str) -> CriteoData:
    spec = read_spec(data_dir)
    return CriteoData(Criteo(spec, data_dir, train_split), Criteo(spec, data_dir, eval_split),
                      spec.cardinalities())
