"""The parameters a vendor config (config_<chip>x<nnodes>x<nproc>.py) may set."""

from chipperf_runtime.training.llmtrain.mutable70b import *  # noqa: F403 - mutable_70b

mutable_params = mutable_70b  # noqa: F405
