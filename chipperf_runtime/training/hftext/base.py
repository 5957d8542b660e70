"""The parameters every transformers text case shares; a case's ``config/_base.py``
star-imports this file and sets its model's own defaults after it, and two names this file
leaves to it: ``model_size`` (a key of the case's PRESETS) and ``target_accuracy`` (the
metric's target per model size, a dict: not vendor-settable, so a vendor picks the model size
and the case fixes what "converged" means for it).

Every public name is a parameter (see docs/adding-a-case.md).
"""

from chipperf_runtime.training.driver.compile_base import *  # noqa: F403 - compile, compile_mode, compile_backend
from chipperf_runtime.training.driver.runmode_base import *  # noqa: F403 - run_mode, perf_warmup_steps, timed_steps

# ---- data
eval_samples = 10000          # evaluate on the first N eval sequences (0: all)
mask_seed = 4321              # masked LM: seed of the fixed evaluation masks

# ---- optimisation: AdamW (no decay on biases and norms), linear warmup, then decay
global_batch_size = 256       # sequences, all ranks together; must divide by the world size
learning_rate = 1e-4          # peak
min_lr_ratio = 0.0            # the decay ends at learning_rate * min_lr_ratio at max_steps
lr_decay = "linear"           # "linear", "cosine" or "inverse_sqrt" (fairseq's)
weight_decay = 0.01
adam_beta1 = 0.9
adam_beta2 = 0.999
adam_eps = 1e-6
warmup_steps = 10000
max_steps = 1000000           # the decay ends here; training stops here if not converged
grad_clip_norm = 1.0          # 0: no clipping

# ---- evaluation and logging
eval_every_steps = 1000
log_every_steps = 10          # STEP_END every N optimizer steps

# ---- numerics and devices
dtype = "fp32"                # "fp32", "bf16" or "fp16" (autocast on the vendor's device;
                              # fp16 with torch.amp.GradScaler's loss scaling)
cpu_threads = None            # torch threads per rank on CPU (None: OMP_NUM_THREADS, else the
                              # usable cores divided by the ranks on the node)
seed = 1234
make_vocab_size_divisible_by = 1   # Megatron-LM's knob: the network's vocabulary (embedding and
                              # LM head) padded up to a multiple of N, so the LM head's GEMM has
                              # tensor-core-aligned widths; FLOPs and the metric count the real
                              # vocabulary (1: no padding)
