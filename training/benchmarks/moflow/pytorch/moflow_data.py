"""ZINC250k as DLE's MoFlow preprocessing writes it (FlagPerf's moflow layout):

    <data_dir>/<config_name>_relgcn_kekulized_ggnp.npz   arr_0: each molecule's atomic numbers,
                                                         arr_1: its [atoms, atoms] bond codes
                                                         (0 none, 1 single, 2 double, 3 triple)
    <data_dir>/valid_idx_<config_name>.json               the validation molecules, 1-based
    <data_dir>/<config_name>.csv                          SMILES and properties (not read)

Each molecule becomes the one-hot atom matrix [atoms, 10] (DLE's codes: the dummy atom 0 and
C N O F P S Cl Br I, in atomic-number order) and the one-hot bond tensor [4, atoms, atoms],
both padded to the preset's ``max_num_nodes`` with the dummy code (DLE's transform_fn).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

import numpy as np
import torch
from torch import Tensor
from torch.utils.data import Dataset

from chipperf_runtime.training.driver import DataError
from chipperf_runtime.training.driver.datadir import require_dir

ATOMIC_NUMBERS = (0, 6, 7, 8, 9, 15, 16, 17, 35, 53)   # DLE's zinc250k codes, dummy first
BOND_CODES = 4
LAYOUT = ("<data_dir>/<config_name>_relgcn_kekulized_ggnp.npz (arr_0 atomic numbers, arr_1 bond "
          "codes per molecule) and <data_dir>/valid_idx_<config_name>.json, as DLE's MoFlow "
          "preprocessing writes them (training/benchmarks/moflow/pytorch/README.md)")


def encode(atoms: np.ndarray, bonds: np.ndarray, nodes: int) -> tuple[Tensor, Tensor]:
    codes = np.zeros(nodes, dtype=np.int64)
    codes[:len(atoms)] = np.searchsorted(ATOMIC_NUMBERS, atoms)
    pairs = np.zeros((nodes, nodes), dtype=np.int64)
    pairs[:len(atoms), :len(atoms)] = bonds
    x = torch.nn.functional.one_hot(torch.from_numpy(codes), len(ATOMIC_NUMBERS)).float()
    adj = torch.nn.functional.one_hot(torch.from_numpy(pairs), BOND_CODES).permute(2, 0, 1).float()
    return x, adj


class Molecules(Dataset):
    def __init__(self, atoms: Sequence[np.ndarray], bonds: Sequence[np.ndarray], nodes: int) -> None:
        self.atoms, self.bonds, self.nodes = atoms, bonds, nodes

    def __len__(self) -> int:
        return len(self.atoms)

    def __getitem__(self, index: int) -> tuple[Tensor, Tensor]:
        return encode(np.asarray(self.atoms[index]), np.asarray(self.bonds[index]), self.nodes)


def collate(samples: list[tuple[Tensor, Tensor]]) -> tuple[Tensor, ...]:
    xs, adjs = zip(*samples)
    return torch.stack(xs), torch.stack(adjs)


@dataclass(frozen=True)
class Zinc:
    """A ``lossloop.data.CaseData``."""

    train: Molecules
    eval: Molecules

    @property
    def collate(self) -> Any:
        return collate

    def describe(self) -> dict[str, Any]:
        return {"train_molecules": len(self.train), "eval_molecules": len(self.eval),
                "max_num_nodes": self.train.nodes}


def read_npz(path: Path) -> tuple[list[np.ndarray], list[np.ndarray]]:
    if not path.is_file():
        raise DataError(f"{path} does not exist; expected layout: {LAYOUT}")
    with np.load(path, allow_pickle=True) as data:
        if "arr_0" not in data or "arr_1" not in data:
            raise DataError(f"{path} has no arr_0 (atoms) and arr_1 (bonds); expected layout: {LAYOUT}")
        return list(data["arr_0"]), list(data["arr_1"])


def bad_atoms(atoms: Sequence[np.ndarray], nodes: int) -> str | None:
    for i, a in enumerate(atoms):
        a = np.asarray(a)
        if len(a) > nodes or not np.isin(a, ATOMIC_NUMBERS).all():
            return f"molecule {i} has {len(a)} atoms (at most {nodes}) of numbers {sorted(set(a.tolist()))}"
    return None


def open_zinc(data_dir: Path, name: str, nodes: int) -> Zinc:
    root = require_dir(data_dir, "moflow data dir", LAYOUT)
    atoms, bonds = read_npz(root / f"{name}_relgcn_kekulized_ggnp.npz")
    index_file = root / f"valid_idx_{name}.json"
    if not index_file.is_file():
        raise DataError(f"{index_file} does not exist; expected layout: {LAYOUT}")
    valid = sorted(int(i) - 1 for i in json.loads(index_file.read_text()))
    problem = bad_atoms(atoms, nodes)
    if problem or not valid or valid[-1] >= len(atoms):
        raise DataError(f"{root}: {problem or 'the validation indices are empty or past the data'}"
                        f"; expected layout: {LAYOUT}")
    held = set(valid)
    train = [i for i in range(len(atoms)) if i not in held]
    return Zinc(Molecules([atoms[i] for i in train], [bonds[i] for i in train], nodes),
                Molecules([atoms[i] for i in valid], [bonds[i] for i in valid], nodes))
