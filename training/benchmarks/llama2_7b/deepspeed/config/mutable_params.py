"""The parameters a vendor config (config_<chip>x<nnodes>x<nproc>.py) may set."""

from chipperf_runtime.training.driver.runmode_mutable import *  # noqa: F403 - run_mode_knobs

mutable_params = run_mode_knobs + [  # noqa: F405
    "model_size", "seq_len", "activation_checkpointing", "eval_samples",
    "global_batch_size", "micro_batch_size", "learning_rate", "min_lr_ratio", "weight_decay",
    "adam_beta1", "adam_beta2", "adam_eps", "warmup_steps", "max_steps", "grad_clip_norm",
    "zero_stage", "offload_optimizer", "torch_adam",
    "eval_every_steps", "log_every_steps", "dtype", "seed", "cpu_threads",
]
