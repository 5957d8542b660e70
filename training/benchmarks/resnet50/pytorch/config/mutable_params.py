"""The parameters a vendor config (config_<chip>x<nnodes>x<nproc>.py) may set."""

from chipperf_runtime.training.driver.compile_mutable import *  # noqa: F403 - compile_knobs
from chipperf_runtime.training.driver.runmode_mutable import *  # noqa: F403 - run_mode_knobs

mutable_params = run_mode_knobs + compile_knobs + [  # noqa: F405
    "data_mode", "image_size", "train_augment", "val_crop_ratio", "num_workers",
    "global_batch_size", "base_lr", "lr_reference_batch", "momentum", "weight_decay",
    "label_smoothing", "warmup_epochs", "nesterov", "bn_momentum", "optimizer", "clip_grad_norm",
    "max_epochs", "target_accuracy", "eval_every_epochs", "max_steps",
    "dtype", "channels_last", "cpu_threads", "seed", "cudnn_benchmark", "log_every_steps",
]
