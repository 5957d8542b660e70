"""The parameters a vendor config (config_<chip>x<nnodes>x<nproc>.py) may set."""

from chipperf_runtime.training.driver.runmode_mutable import *  # noqa: F403 - run_mode_knobs
from chipperf_runtime.training.hftext.hpugraphs_mutable import *  # noqa: F403 - hpu_graph_knobs

mutable_params = hpu_graph_knobs + run_mode_knobs + [  # noqa: F405
    "model_size", "eval_samples",
    "global_batch_size", "learning_rate", "weight_decay", "adam_beta1", "adam_beta2", "adam_eps",
    "warmup_steps", "max_steps", "grad_clip_norm",
    "eval_every_steps", "log_every_steps", "dtype", "cpu_threads", "seed",
]
