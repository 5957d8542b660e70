"""t5_small (PyTorch) defaults: FlagPerf's t5_small recipe: fine-tune T5-Small from the
data folder's t5-small weights on CNN/DailyMail summarisation (sources of 1024 tokens,
summaries of 128), AdamW 5e-5 without weight decay or warmup, linear decay to 0 over 3
epochs, no clipping, fp32, evaluated after every epoch by greedy generation and ROUGE-1.

Every public name here is a parameter; the shared ones are in
chipperf_runtime/training/hftext/base.py. A vendor config may change the names in
mutable_params.py.
"""

from chipperf_runtime.training.hftext.base import *  # noqa: F403 - global_batch_size, learning_rate, ... (see there)
from chipperf_runtime.training.hftext.hpugraphs_base import *  # noqa: F403 - hpu_graphs_for_training, hpu_graphs_for_inference (intel_gaudi)

model_size = "small"          # "small" (T5-Small) or "tiny" (the CI model): PRESETS
# ROUGE-1 (percent) of greedy summaries of the eval split, per model size (README)
target_rouge1 = {"small": 40.5, "tiny": 95.0}
from_checkpoint = True        # start from <data_dir>/model/model.safetensors (False: random)

global_batch_size = 256       # FlagPerf: 32 per GPU on 8 GPUs
learning_rate = 5e-5
weight_decay = 0.0
adam_eps = 1e-8
warmup_steps = 0
max_steps = 3363              # 3 epochs of 287,113 pairs in full batches of 256 (1121 each)
eval_every_steps = 1121       # once per epoch
eval_samples = 0              # every eval pair (CNN/DailyMail validation: 13,368)
grad_clip_norm = 0.0
log_every_steps = 50
dtype = "fp32"
