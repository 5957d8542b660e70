"""chipperf inference case resnet50 (PyTorch model; engines: see common.engines).

Data: an ImageNet-layout folder (``<data_dir>/val/<class>/<image>``), pre-processed on the
host (decode, resize, centre crop, normalise). Model: torchvision's ResNet-50 v1.5 with its
initialisation, the tree's one ResNet-50 (``chipperf_runtime.models.resnet``, shared with the
training case). Output: logits [batch, num_classes]; each item is scored by
its top-1 class.
"""

from __future__ import annotations

from chipperf_runtime.models.tvision import prepare_torchvision

prepare_torchvision()  # first, explicitly: torchvision (transformers imports it) beside a CPU torch

import sys

from chipperf_runtime.inference.classify import image_case
from chipperf_runtime.inference.runner import main
from chipperf_runtime.models.resnet import resnet50

CASE = image_case("resnet50",
                  lambda config: resnet50(config["num_classes"], zero_init_residual=False))

if __name__ == "__main__":
    sys.exit(main(CASE))
