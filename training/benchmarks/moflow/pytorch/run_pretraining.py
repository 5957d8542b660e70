"""moflow / PyTorch: MoFlow (DLE's shapes, ``moflow_model``) trained by maximum likelihood on
ZINC250k molecular graphs, DDP under torchrun: FlagPerf's moflow. The metric is the
validation negative log-likelihood in bits per dimension (FlagPerf's NUV needs RDKit: README).
The loop, optimiser, DDP and FINISHED are ``lossloop.case``'s."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping

from moflow_data import Zinc, open_zinc
from moflow_model import PRESETS, forward_flops, moflow

from chipperf_runtime.training.driver import Config, run_case
from chipperf_runtime.training.lossloop.case import LossCase, main
from chipperf_runtime.training.lossloop.data import CaseData

CASE_DIR = Path(__file__).resolve().parent


def open_data(data_dir: Path, cfg: Config, preset: Mapping[str, Any]) -> Zinc:
    return open_zinc(data_dir, cfg.config_name, preset["max_num_nodes"])


def flops(preset: Mapping[str, Any], data: CaseData) -> float:
    return forward_flops(preset)


CASE = LossCase(presets=PRESETS, build=lambda preset, data: moflow(preset), open_data=open_data,
                forward_flops=flops, metric="val_nll_bits_per_dim")

if __name__ == "__main__":
    run_case(lambda: main("moflow", CASE_DIR, CASE), quick_exit=True)
