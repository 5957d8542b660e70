"""resnet50 / PyTorch training case: ImageNet-layout folders, DDP, top-1 target.

    torchrun --nproc_per_node=N run_pretraining.py --data_dir D \
        --extern_config_dir DIR --extern_config_file config_<chip>x<nnodes>x<nproc>.py \
        --output_dir OUT [--set name=value ...]

The device and its collective backend are the vendor's (chipperf_runtime.device). The loop, data and
FINISHED are the shared image-classification case (imagecls); the model is the tree's one
ResNet-50 (torchvision's, through chipperf_runtime.models.resnet, shared with the inference
case). See README.md for the FLOPs formula and the measured CI runs.
"""

from __future__ import annotations

from chipperf_runtime.models.tvision import prepare_torchvision

prepare_torchvision()  # first, explicitly: torchvision (transformers imports it) beside a CPU torch

from pathlib import Path

from torch import nn

from chipperf_runtime.models.resnet import flops_per_sample, resnet50
from chipperf_runtime.training.driver import Config, run_case
from chipperf_runtime.training.imagecls.case import ImageModel, main

CASE_DIR = Path(__file__).resolve().parent


def build(cfg: Config, classes: int) -> nn.Module:
    return resnet50(classes, bn_momentum=cfg.bn_momentum)


def forward_flops(cfg: Config, classes: int, net: nn.Module) -> int:
    return flops_per_sample(net, cfg.image_size).forward


IMAGE_MODEL = ImageModel(build, forward_flops)

if __name__ == "__main__":
    run_case(lambda: main("resnet50", CASE_DIR, IMAGE_MODEL), quick_exit=True)
