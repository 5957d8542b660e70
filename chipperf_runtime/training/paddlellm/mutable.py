"""The parameters a vendor config of a Paddle LLM case may set (its mutable_params.py
star-imports this). Not among them: ``target_eval_loss`` (the case fixes what "converged"
means for each size)."""

from chipperf_runtime.training.driver.runmode_mutable import *  # noqa: F403 - run_mode_knobs

mutable_params = run_mode_knobs + [  # noqa: F405
    "model_size", "max_seq_length", "split", "eval_samples",
    "tensor_parallel_degree", "pipeline_parallel_degree", "sharding_parallel_degree",
    "sharding", "recompute", "per_device_train_batch_size", "gradient_accumulation_steps",
    "max_steps", "learning_rate", "min_learning_rate", "warmup_steps", "decay_steps",
    "lr_scheduler_type", "weight_decay", "adam_beta1", "adam_beta2", "adam_epsilon",
    "max_grad_norm", "eval_steps", "log_every_steps", "fp16", "bf16", "scale_loss",
    "cpu_threads", "seed",
]
