"""The parameters a vendor config (config_<chip>x<nnodes>x<nproc>.py) may set."""

from chipperf_runtime.training.lossloop.mutable import *  # noqa: F403 - shared_mutable

mutable_params = shared_mutable + ["train_split", "eval_split", "tgt_len"]  # noqa: F405
