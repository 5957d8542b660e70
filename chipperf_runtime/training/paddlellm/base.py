"""The parameters every Paddle LLM case shares (its config/_base.py star-imports this file
and sets model_size). FlagPerf's names where FlagPerf's configs set them (its nvidia
``config_TP..x1x8.py`` files are read as they are), chipperf's where FlagPerf has none.
Every public name is a parameter."""

from chipperf_runtime.training.driver.runmode_base import *  # noqa: F403 - run_mode, perf_warmup_steps, timed_steps

# ---- data (FlagPerf's PaddleNLP layout, paddlellm/data.py)
max_seq_length = 2048         # tokens per sample (at most the size's positions)
split = "998,1,1"             # train, validation, test shares of the documents
eval_samples = 64             # evaluate on the first N validation windows (0: all)

# ---- parallel layout (FlagPerf's names; paddlellm/layout.py): world = PP x data x TP
tensor_parallel_degree = 1
pipeline_parallel_degree = 1
sharding_parallel_degree = 1  # 1, or the whole data-parallel degree (ZeRO over it)
sharding = "stage1"           # ZeRO stage when sharding_parallel_degree > 1: stage1 or stage2
recompute = False             # recompute each decoder layer in backward (activation memory)

# ---- batch: global batch = per_device_train_batch_size x gradient_accumulation_steps x data
per_device_train_batch_size = 1
gradient_accumulation_steps = 1

# ---- optimisation (PaddleNLP's Trainer arguments)
max_steps = 100
learning_rate = 3e-4
min_learning_rate = 3e-5
warmup_steps = 0
decay_steps = 0               # 0: max_steps
lr_scheduler_type = "cosine"  # "cosine", "linear" or "constant"
weight_decay = 0.1            # matrices only
adam_beta1 = 0.9
adam_beta2 = 0.95
adam_epsilon = 1e-8
max_grad_norm = 1.0           # global-norm clipping (0: none)
eval_steps = 1000             # evaluate every N optimizer steps and at max_steps
log_every_steps = 1

# ---- numerics and devices
fp16 = False                  # AMP O1 in float16 with a static loss scale of scale_loss
bf16 = False                  # AMP O1 in bfloat16
scale_loss = 1024.0
cpu_threads = 0               # OMP threads per rank on CPU; 0: the node's cores / nproc
seed = 42
