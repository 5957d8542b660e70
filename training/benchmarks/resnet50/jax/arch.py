"""The ResNet-50 shapes a run may pick (``model_size``), as numbers only: no JAX import, so a
bad configuration is reported before JAX loads."""

from __future__ import annotations

PUBLISHED_BLOCKS = (3, 4, 6, 3)
PUBLISHED_WIDTH = 64

# model_size -> (bottleneck blocks per stage, first-stage width): the published ResNet-50 and
# the CI size (same code, one block per stage, a quarter of the width).
PRESETS = {
    "resnet50": (PUBLISHED_BLOCKS, PUBLISHED_WIDTH),
    "tiny": ((1, 1, 1, 1), 16),
}
