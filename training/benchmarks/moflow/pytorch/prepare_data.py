"""Writes the moflow CI data set in DLE's ZINC250k layout (moflow_data.py): 1,024 small
"molecules" of 3-8 atoms (mostly C, some N and O), each a random tree of single bonds with
an occasional double bond, and a validation index of 128 of them.

    python3 prepare_data.py --output DIR [--count 1024 --valid 128]
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np


def molecule(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    n = int(rng.integers(3, 9))
    atoms = rng.choice([6, 7, 8], size=n, p=[0.7, 0.2, 0.1]).astype(np.uint8)
    bonds = np.zeros((n, n), dtype=np.uint8)
    for i in range(1, n):
        j = int(rng.integers(0, i))
        bonds[i, j] = bonds[j, i] = 2 if rng.random() < 0.15 else 1
    return atoms, bonds


def prepare(out: Path, count: int = 1024, valid: int = 128) -> Path:
    rng = np.random.default_rng(29)
    mols = [molecule(rng) for _ in range(count)]
    atoms, bonds = np.empty(count, dtype=object), np.empty(count, dtype=object)
    for i, (a, b) in enumerate(mols):
        atoms[i], bonds[i] = a, b
    out.mkdir(parents=True, exist_ok=True)
    np.savez(out / "zinc250k_relgcn_kekulized_ggnp.npz", atoms, bonds)
    held = sorted(rng.choice(count, size=valid, replace=False) + 1)   # 1-based, as DLE's
    (out / "valid_idx_zinc250k.json").write_text(json.dumps([int(i) for i in held]))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--output", type=Path, required=True)
    parser.add_argument("--count", type=int, default=1024)
    parser.add_argument("--valid", type=int, default=128)
    args = parser.parse_args()
    prepare(args.output, args.count, args.valid)


if __name__ == "__main__":
    main()
