"""The layer norm dcu's glm runs: apex's fused kernel, as FlagPerf's dcu folder names it
(FlagOpen/FlagPerf@1b5a0303 training/dcu/glm-pytorch/extern/layers/layernorm.py). apex must be in
the dcu image (FlagPerf's dcu Dockerfile installs none: it expects the base image to have it);
without it the case stops before training, naming the adapter and the missing module
(chipperf_runtime/training/driver/adapter.py), rather than running torch's layer norm."""

from apex.normalization import FusedLayerNorm as LayerNorm

__all__ = ["LayerNorm"]
