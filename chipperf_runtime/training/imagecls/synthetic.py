"""``data_mode = "synthetic"``: one device-resident batch of random images and labels, made
once and trained on at every step, so the figure is the chip's compute alone (no decoding,
augmentation, host-to-device copies or loader workers). It trains toward no target: the case
requires performance mode with it, and results label it "synthetic: compute only".
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import torch

from chipperf_runtime.training.driver import Config, ConfigError
from chipperf_runtime.training.imagecls.datamode import DATA_MODES, data_mode_problem

__all__ = ["DATA_MODES", "SYNTHETIC_CLASSES", "check_data_mode", "synthetic_batches"]

SYNTHETIC_CLASSES = 1000          # num_classes = None with no data to count: ImageNet-1k's
STEPS_PER_EPOCH = 100             # an "epoch" of synthetic batches (epoch events, lr schedule)


def check_data_mode(cfg: Config) -> str:
    """The config's data mode; ``ConfigError`` for a mode it cannot run (``datamode``'s rules:
    unknown, decoding on the device, synthetic input in convergence mode)."""
    mode = cfg.get("data_mode", "real")
    problem = data_mode_problem(mode, cfg.get("run_mode", "convergence"))
    if problem:
        raise ConfigError(problem)
    return str(mode)


@dataclass
class SyntheticBatches:
    """Yields the same (images, labels) device batch STEPS_PER_EPOCH times per epoch."""

    images: torch.Tensor
    labels: torch.Tensor

    def __iter__(self) -> Iterator[tuple[torch.Tensor, torch.Tensor]]:
        for _ in range(STEPS_PER_EPOCH):
            yield self.images, self.labels

    def __len__(self) -> int:
        return STEPS_PER_EPOCH


def synthetic_batches(cfg: Config, per_rank: int, classes: int, device: torch.device,
                      seed: int) -> SyntheticBatches:
    generator = torch.Generator().manual_seed(seed)
    images = torch.randn(per_rank, 3, cfg.image_size, cfg.image_size, generator=generator)
    labels = torch.randint(0, classes, (per_rank,), generator=generator)
    images = images.to(device)
    if cfg.channels_last:
        images = images.contiguous(memory_format=torch.channels_last)
    return SyntheticBatches(images, labels.to(device))
