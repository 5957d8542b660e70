"""The parameters every loss-loop case shares; a case's ``config/_base.py`` star-imports this
file and sets its model's own defaults after it, and two names this file leaves to it:
``model_size`` (a key of the case's PRESETS) and ``target`` (the metric's target per model
size, a dict: not vendor-settable, so a vendor picks the model size and the case fixes what
"converged" means for it).

Every public name is a parameter (see docs/adding-a-case.md). The optimiser's names are the
transformers text cases' (``hftext.case.optimizer_for`` and ``lr_factor`` read them).
"""

from chipperf_runtime.training.driver.runmode_base import *  # noqa: F403 - run_mode, perf_warmup_steps, timed_steps

# ---- data
eval_samples = 0              # evaluate on the first N samples of the eval split (0: all)
num_workers = 2               # DataLoader worker processes per rank (0: read in the loop)

# ---- optimisation: AdamW (no decay on biases and norms), linear warmup, then decay
global_batch_size = 128       # samples, all ranks together; must divide by the world size
learning_rate = 1e-3          # peak
min_lr_ratio = 0.0            # the decay ends at learning_rate * min_lr_ratio at max_steps
lr_decay = "linear"           # "linear" or "cosine"
weight_decay = 0.0
adam_beta1 = 0.9
adam_beta2 = 0.999
adam_eps = 1e-8
warmup_steps = 0
max_steps = 100000            # the decay ends here; training stops here if not converged
grad_clip_norm = 1.0          # 0: no clipping

# ---- evaluation and logging
eval_every_steps = 1000
log_every_steps = 10          # STEP_END every N optimizer steps

# ---- numerics and devices
dtype = "fp32"                # "fp32" or "bf16" (autocast on the vendor's device)
cpu_threads = None            # torch threads per rank on CPU (None: OMP_NUM_THREADS, else the
                              # usable cores divided by the ranks on the node)
seed = 1234
