"""FlagPerf's moflow metric, NUV: the share (%) of generated molecules that are valid, unique
and novel, as DLE's MoFlow scores them with RDKit (FlagPerf's ``train/evaluator.py`` and
``misc/utils.py``):

- a molecule is built from its atoms (the dummy atom dropped) and bonds, adding each bond in
  turn and charging an N, O or S atom +1 when that bond takes it one over its valency
  (``construct_mol``); it is valid when its SMILES is neither empty nor in fragments and RDKit
  reads the SMILES back (``valid_smiles``, non-isomeric);
- the training set's SMILES are those of its molecules built the same way, without the
  read-back (isomeric SMILES of the unsanitised molecule), as DLE's ``predictions_to_smiles``;
- NUV = the distinct valid SMILES not among the training ones, over all generated molecules.
  Validity, uniqueness (distinct over valid) and novelty (novel over valid) are reported too.

DLE's training SMILES are Kekulé forms of the kekulized data while a generated molecule's are
read back (aromatic), so an aromatic molecule is never found in the training set: kept as
FlagPerf computes it, since its target (80 %) is defined by it (README).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterable, Sequence

import numpy as np

try:
    from rdkit import Chem, RDLogger
except ImportError as missing:   # the case's config check says how to install it
    Chem = RDLogger = None
    RDKIT_MISSING: ImportError | None = missing
else:
    RDKIT_MISSING = None
    RDLogger.DisableLog("rdApp.*")

ATOM_VALENCY = {6: 4, 7: 3, 8: 2, 9: 1, 15: 3, 16: 2, 17: 1, 35: 1, 53: 1}   # DLE's
CHARGEABLE = (7, 8, 16)              # atoms DLE charges +1 when a bond exceeds their valency


def require_rdkit() -> None:
    if RDKIT_MISSING is not None:
        raise RuntimeError(f"moflow's metric (NUV) needs RDKit, which does not import here "
                           f"({RDKIT_MISSING}): install rdkit (pinned in the pytorch images' "
                           f"requirements.txt)")


def bond_type(code: int) -> "Chem.BondType":
    return (Chem.BondType.SINGLE, Chem.BondType.DOUBLE, Chem.BondType.TRIPLE)[code - 1]


def over_valency(mol: "Chem.RWMol") -> tuple[int, int] | None:
    """(atom index, its valency) of an atom over its allowed valency, else None (DLE's
    check_valency: RDKit's property sanitisation, its message parsed)."""
    try:
        Chem.SanitizeMol(mol, sanitizeOps=Chem.SanitizeFlags.SANITIZE_PROPERTIES)
        return None
    except ValueError as error:
        text = str(error)
        numbers = [int(n) for n in re.findall(r"\d+", text[text.find("#"):])]
        return numbers[0], numbers[1]


def construct_mol(atoms: np.ndarray, bonds: np.ndarray) -> "Chem.RWMol":
    """DLE's construct_mol: atomic numbers [atoms] (0: none) and bond codes [atoms, atoms]
    (0 none, 1 single, 2 double, 3 triple)."""
    present = atoms != 0
    atoms, bonds = atoms[present], bonds[present][:, present]
    mol = Chem.RWMol()
    for number in atoms:
        mol.AddAtom(Chem.Atom(int(number)))
    for start, end in zip(*np.nonzero(bonds)):
        if start > end:
            mol.AddBond(int(start), int(end), bond_type(int(bonds[start, end])))
            over = over_valency(mol)
            if over is not None:
                atom = mol.GetAtomWithIdx(over[0])
                if atom.GetAtomicNum() in CHARGEABLE and over[1] - ATOM_VALENCY[atom.GetAtomicNum()] == 1:
                    atom.SetFormalCharge(1)
    return mol


def valid_smiles(mol: "Chem.RWMol") -> str | None:
    """The molecule's non-isomeric SMILES when valid (DLE's valid_mol), else None."""
    smiles = Chem.MolToSmiles(mol, isomericSmiles=True)
    if not smiles or "." in smiles:
        return None
    reread = Chem.MolFromSmiles(smiles)
    return None if reread is None else Chem.MolToSmiles(reread, isomericSmiles=False)


def training_smiles(molecules: Iterable[tuple[np.ndarray, np.ndarray]]) -> frozenset[str]:
    """DLE's predictions_to_smiles over the training set: (atomic numbers, bond codes) each."""
    return frozenset(Chem.MolToSmiles(construct_mol(np.asarray(a), np.asarray(b)), isomericSmiles=True)
                     for a, b in molecules)


@dataclass(frozen=True)
class Nuv:
    """DLE's metrics of one batch of generated molecules, in %."""

    validity: float
    uniqueness: float
    novelty: float
    nuv: float


def score(generated: Sequence[str | None], known: frozenset[str]) -> Nuv:
    """``generated``: each molecule's valid SMILES or None (DLE's check_validity and
    check_novelty)."""
    if not generated:
        raise ValueError("no generated molecules to score")
    valid = [s for s in generated if s is not None]
    distinct = set(valid)
    novel = sum(1 for s in valid if s not in known)
    return Nuv(validity=100.0 * len(valid) / len(generated),
               uniqueness=100.0 * len(distinct) / len(valid) if valid else 0.0,
               novelty=100.0 * novel / len(valid) if valid else 0.0,
               nuv=100.0 * len(distinct - known) / len(generated))
