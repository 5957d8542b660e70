"""The parameters a vendor config may set in llama2_70B and llama3_70B (both cases'
``config/mutable_params.py`` star-import this file); the defaults are in base70b.py."""

from chipperf_runtime.training.driver.runmode_mutable import *  # noqa: F403 - run_mode_knobs

mutable_70b = run_mode_knobs + [  # noqa: F405
    "model_size", "seq_len", "activation_checkpointing", "tensor_parallel", "pipeline_parallel",
    "pipeline_schedule",
    "reshard_after_forward", "eval_samples", "global_batch_size", "micro_batch_size",
    "learning_rate", "min_lr_ratio", "weight_decay", "adam_beta1", "adam_beta2", "adam_eps",
    "warmup_steps", "max_steps", "grad_clip_norm", "eval_every_steps", "log_every_steps",
    "dtype", "seed", "cpu_threads",
]
