"""The parameters a vendor config (config_<chip>x<nnodes>x<nproc>.py) may set."""

from chipperf_runtime.training.hftext.mutable import *  # noqa: F403 - shared_mutable

mutable_params = shared_mutable + [  # noqa: F405
    "train_subset", "valid_subset", "crop_samples", "num_workers",
    "gumbel_temp_max", "gumbel_temp_min", "gumbel_temp_decay",
]
