"""The shared parameters a vendor config may set; a case's ``config/mutable_params.py``
adds its own model's names to ``shared_mutable``."""

from chipperf_runtime.training.driver.runmode_mutable import *  # noqa: F403 - run_mode_knobs

shared_mutable = run_mode_knobs + [  # noqa: F405
    "min_size", "max_size", "train_augment", "num_workers",
    "optimizer", "global_batch_size", "global_eval_batch_size", "base_lr", "lr_reference_batch",
    "backbone_lr_factor", "momentum",
    "weight_decay", "warmup_steps", "warmup_factor", "lr_steps", "lr_gamma", "clip_grad_norm",
    "max_epochs", "target_map", "eval_every_epochs", "max_steps",
    "dtype", "cpu_threads", "seed", "cudnn_benchmark", "log_every_steps", "model_size",
]
