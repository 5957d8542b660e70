"""What a vendor config may set: chipperf_runtime/training/paddlellm/mutable.py."""

from chipperf_runtime.training.paddlellm.mutable import *  # noqa: F403 - mutable_params
