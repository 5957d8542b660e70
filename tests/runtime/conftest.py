"""The runtime tier: tests that import torch or another framework, or start processes, on this
machine (no Docker, no SSH). As a case entry script does, torchvision's import is prepared
first, explicitly (chipperf_runtime.models.tvision), before any test imports transformers."""

from chipperf_runtime.models.tvision import prepare_torchvision

prepare_torchvision()
