"""moflow / PyTorch: MoFlow (DLE's shapes, ``moflow_model``) trained by maximum likelihood on
ZINC250k molecular graphs, DDP under torchrun: FlagPerf's moflow. The metric is FlagPerf's
NUV (``moflow_nuv``, with RDKit): molecules sampled from the model at ``temperature``, the
share that are valid, unique and not in the training set. The loop, optimiser, DDP and
FINISHED are ``lossloop.case``'s."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any, Mapping, Sequence

import numpy as np
import torch
import torch.distributed as tdist
from moflow_data import ATOMIC_NUMBERS, Zinc, open_zinc
from moflow_model import PRESETS, MoFlow, forward_flops, moflow
from moflow_nuv import construct_mol, require_rdkit, score, training_smiles, valid_smiles
from torch import nn

from chipperf_runtime.training.driver import Config, run_case
from chipperf_runtime.training.lossloop.case import LossCase, main
from chipperf_runtime.training.lossloop.data import CaseData
from chipperf_runtime.training.lossloop.train import Batch, Evaluate, Loop, autocast

CASE_DIR = Path(__file__).resolve().parent


def open_data(data_dir: Path, cfg: Config, preset: Mapping[str, Any]) -> Zinc:
    return open_zinc(data_dir, cfg.config_name, preset["max_num_nodes"])


def flops(preset: Mapping[str, Any], data: CaseData) -> float:
    return forward_flops(preset)


def generated_smiles(net: MoFlow, count: int, temperature: float, seed: int) -> list[str | None]:
    """This rank's ``count`` sampled molecules, each its valid SMILES or None; the latents
    are drawn from a generator seeded ``seed``, so an evaluation is a function of the model."""
    generator = torch.Generator(device=net.ln_var.device).manual_seed(seed)
    atoms, bonds = net.sample(count, temperature, generator)
    numbers = np.asarray(ATOMIC_NUMBERS)[atoms.cpu().numpy()]
    return [valid_smiles(construct_mol(a, b)) for a, b in zip(numbers, bonds.cpu().numpy())]


def gathered(mine: list[str | None]) -> list[str | None]:
    if not (tdist.is_available() and tdist.is_initialized()):
        return mine
    every: list[list[str | None]] = [[] for _ in range(tdist.get_world_size())]
    tdist.all_gather_object(every, mine)
    return [smiles for share in every for smiles in share]


def nuv_evaluator(cfg: Config, data: CaseData) -> Evaluate:
    """NUV (%) of ``eval_molecules`` molecules sampled over the ranks (each rank its share,
    the scores over all of them); the training set's SMILES are built at the first evaluation."""
    require_rdkit()
    train = data.train
    known = functools.cache(lambda: training_smiles(zip(train.atoms, train.bonds)))  # type: ignore[attr-defined]

    def evaluate(net: nn.Module, batches: Sequence[Batch], loop: Loop) -> float:
        rank, world = (tdist.get_rank(), tdist.get_world_size()) if tdist.is_initialized() else (0, 1)
        count = len(range(rank, cfg.eval_molecules, world))
        with autocast(loop):
            mine = generated_smiles(net, count, cfg.temperature, cfg.seed + rank)  # type: ignore[arg-type]
        result = score(gathered(mine), known())
        if rank == 0:
            print(f"moflow evaluation: {result}", flush=True)
        return result.nuv
    return evaluate


CASE = LossCase(presets=PRESETS, build=lambda preset, data: moflow(preset), open_data=open_data,
                forward_flops=flops, metric="nuv", higher_is_better=True, evaluator=nuv_evaluator)

if __name__ == "__main__":
    run_case(lambda: main("moflow", CASE_DIR, CASE), quick_exit=True)
