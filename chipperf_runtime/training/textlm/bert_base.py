"""The parameters both bert cases share, with their defaults: BERT-large masked-LM pretraining,
sequences of the data's length.

Each bert case's ``config/_base.py`` star-imports this file and adds its framework's numerics
(dtype, threads, seed), so the two frameworks train the same model on the same data to the same
target with the same schedule. Every public name here is a parameter.
"""

from chipperf_runtime.training.driver.runmode_base import *  # noqa: F403 - run_mode, perf_warmup_steps, timed_steps

# ---- model: a size from textlm.bert.PRESETS. "large" is BERT-large (335,174,458 parameters
# with the tied MLM head); "tiny" (2 layers, hidden 128, vocab 1024, no dropout) is the CI size
# that trains on bert/pytorch/prepare_data.py's offline corpus in minutes on a CPU.
model_size = "large"

# ---- quality target: MLM accuracy on the eval split, per model size. Not vendor-settable:
# a vendor picks the model size, the case fixes what "converged" means for it.
# large: MLPerf Training BERT's 0.720; tiny: measured on prepare_data.py's corpus (README).
target_mlm_accuracy = {"large": 0.720, "tiny": 0.10}

# ---- data
eval_samples = 10000          # evaluate on the first N eval rows (0: all); MLPerf uses 10000
mask_seed = 4321              # seed of the fixed evaluation masks

# ---- optimisation: AdamW (no decay on biases and LayerNorm), linear warmup then linear decay
global_batch_size = 256       # sequences, all ranks together; must divide by the world size
learning_rate = 1e-4          # peak
weight_decay = 0.01
adam_beta1 = 0.9
adam_beta2 = 0.999
adam_eps = 1e-6
warmup_steps = 10000
max_steps = 1000000           # decay reaches 0 here; training stops here if not converged
grad_clip_norm = 1.0          # 0: no clipping

# ---- evaluation and logging
eval_every_steps = 1000
log_every_steps = 10          # STEP_END every N optimizer steps
