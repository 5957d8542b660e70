"""The parameters a vendor config (config_<chip>x<nnodes>x<nproc>.py) may set."""

from chipperf_runtime.training.driver.compile_mutable import *  # noqa: F403 - compile_knobs
from chipperf_runtime.training.driver.runmode_mutable import *  # noqa: F403 - run_mode_knobs

mutable_params = run_mode_knobs + compile_knobs + [  # noqa: F405
    "model_size", "seq_len", "activation_checkpointing", "tensor_parallel", "pipeline_parallel",
    "pipeline_schedule",
    "reshard_after_forward", "eval_samples", "global_batch_size", "micro_batch_size",
    "learning_rate", "min_lr_ratio", "weight_decay", "adam_beta1", "adam_beta2", "adam_eps",
    "warmup_steps", "max_steps", "grad_clip_norm", "eval_every_steps", "log_every_steps",
    "dtype", "seed", "cpu_threads",
]
