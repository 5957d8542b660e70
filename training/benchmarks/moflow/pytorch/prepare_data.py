"""Writes the moflow CI data set in DLE's ZINC250k layout (moflow_data.py): 1,024 small
molecules of 3-8 atoms (mostly C, some N and O), each a chain (atom i bonded to atom i + 1) of
single bonds with an occasional double bond where both atoms' valencies allow it, so every
one is a valid molecule; and a validation index of 128 of them.

    python3 prepare_data.py --output DIR [--count 1024 --valid 128]
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

VALENCY = {6: 4, 7: 3, 8: 2}


def molecule(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    n = int(rng.integers(3, 9))
    atoms = rng.choice([6, 7, 8], size=n, p=[0.7, 0.2, 0.1]).astype(np.uint8)
    bonds = np.zeros((n, n), dtype=np.uint8)
    free = [VALENCY[int(a)] - (1 if i in (0, n - 1) else 2) for i, a in enumerate(atoms)]
    for i in range(1, n):
        double = min(free[i - 1], free[i]) > 0 and rng.random() < 0.15
        free[i - 1], free[i] = free[i - 1] - double, free[i] - double
        bonds[i, i - 1] = bonds[i - 1, i] = 1 + double
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
