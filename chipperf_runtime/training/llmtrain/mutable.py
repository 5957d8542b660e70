"""The parameters every llmtrain case lets a vendor config set; a case's
``config/mutable_params.py`` adds its own names (its parallel layout's, its model's) to
``shared_mutable``. ``target_eval_loss`` is not among them (see base.py)."""

from chipperf_runtime.training.driver.runmode_mutable import *  # noqa: F403 - run_mode_knobs

shared_mutable = run_mode_knobs + [  # noqa: F405
    "model_size", "seq_len", "activation_checkpointing", "tensor_parallel",
    "reshard_after_forward", "eval_samples", "global_batch_size", "micro_batch_size",
    "learning_rate", "min_lr_ratio", "weight_decay", "adam_beta1", "adam_beta2", "adam_eps",
    "warmup_steps", "max_steps", "grad_clip_norm", "eval_every_steps", "log_every_steps",
    "dtype", "seed", "cpu_threads",
]
