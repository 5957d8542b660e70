"""The shared parameters a vendor config may set; a case's ``config/mutable_params.py`` adds
its own names to ``shared_mutable``. ``target_accuracy`` is not among them (see base.py)."""

from chipperf_runtime.training.driver.compile_mutable import *  # noqa: F403 - compile_knobs
from chipperf_runtime.training.driver.runmode_mutable import *  # noqa: F403 - run_mode_knobs

shared_mutable = run_mode_knobs + compile_knobs + [  # noqa: F405
    "model_size", "eval_samples",
    "global_batch_size", "learning_rate", "min_lr_ratio", "lr_decay", "weight_decay",
    "adam_beta1", "adam_beta2", "adam_eps", "warmup_steps", "max_steps", "grad_clip_norm",
    "eval_every_steps", "log_every_steps", "dtype", "cpu_threads", "seed",
    "make_vocab_size_divisible_by",
]
