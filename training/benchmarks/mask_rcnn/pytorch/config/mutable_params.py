"""The parameters a vendor config (config_<chip>x<nnodes>x<nproc>.py) may set."""

from chipperf_runtime.training.detection.mutable import *  # noqa: F403 - shared_mutable

mutable_params = shared_mutable + ["target_mask_map"]  # noqa: F405
