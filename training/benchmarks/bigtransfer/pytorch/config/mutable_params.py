"""The parameters a vendor config (config_<chip>x<nnodes>x<nproc>.py) may set."""

from chipperf_runtime.training.imagecls.mutable import *  # noqa: F403 - shared_mutable

mutable_params = shared_mutable + ["model_size"]  # noqa: F405
