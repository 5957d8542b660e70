"""The parameters a vendor config (config_<chip>x<nnodes>x<nproc>.py) may set.

Not among them: target_accuracy (the case fixes what "converged" means for each model size)
and num_classes (the data decides it)."""

from chipperf_runtime.training.driver.runmode_mutable import *  # noqa: F403 - run_mode_knobs

mutable_params = run_mode_knobs + [  # noqa: F405
    "model_size", "bn_momentum", "image_size", "train_augment", "val_crop_ratio",
    "decode_threads", "global_batch_size", "base_lr", "lr_reference_batch", "momentum",
    "weight_decay", "label_smoothing", "warmup_epochs", "nesterov",
    "max_epochs", "eval_every_epochs", "max_steps", "dtype", "seed", "log_every_steps",
]
