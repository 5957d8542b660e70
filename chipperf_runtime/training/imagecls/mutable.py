"""The shared parameters a vendor config may set; a case's ``config/mutable_params.py``
adds its own model's names to ``shared_mutable``."""

from chipperf_runtime.training.driver.compile_mutable import *  # noqa: F403 - compile_knobs
from chipperf_runtime.training.driver.runmode_mutable import *  # noqa: F403 - run_mode_knobs

shared_mutable = run_mode_knobs + compile_knobs + [  # noqa: F405
    "data_mode", "image_size", "train_augment", "val_crop_ratio", "num_workers",
    "optimizer", "global_batch_size", "base_lr", "lr_reference_batch", "momentum", "nesterov",
    "weight_decay", "label_smoothing", "warmup_epochs", "clip_grad_norm",
    "max_epochs", "target_accuracy", "eval_every_epochs", "max_steps",
    "dtype", "channels_last", "cpu_threads", "seed", "cudnn_benchmark", "log_every_steps",
]
