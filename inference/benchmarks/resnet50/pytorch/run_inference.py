"""chipperf inference case resnet50 (PyTorch model; engines: see common.engines).

Data: an ImageNet-layout folder (``<data_dir>/val/<class>/<image>``), pre-processed on the
host (decode, resize, centre crop, normalise). Model: ResNet-50 v1.5 with torchvision's
parameter names (``common.models.resnet``). Output: logits [batch, num_classes]; each item is
scored by its top-1 class.
"""

from __future__ import annotations

import sys

from common.classify import image_case
from common.models.resnet import resnet50
from common.runner import main

CASE = image_case("resnet50", lambda config: resnet50(config["num_classes"]))

if __name__ == "__main__":
    sys.exit(main(CASE))
