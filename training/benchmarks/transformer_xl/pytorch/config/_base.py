"""transformer_xl (PyTorch) defaults: FlagPerf's transformer_xl recipe (its config/_base.py and
nvidia configs): its 16-layer, 410-wide Transformer-XL from random weights on WikiText-103,
150-token segments, Adam at 2.5e-4 (no weight decay) with cosine annealing to 0 over 200,000
steps and no warmup, clipping at 0.25, to test perplexity 55.

Every public name here is a parameter; the loop's are shared with the other loss-loop cases
(chipperf_runtime/training/lossloop/base.py). A vendor config may change the names in
mutable_params.py.
"""

from chipperf_runtime.training.lossloop.base import *  # noqa: F403 - global_batch_size, learning_rate, ... (see there)

model_size = "base"           # "base" (FlagPerf's), "wt103" (config.json's) or "tiny" (CI): PRESETS
target = {"base": 55.0, "wt103": 55.0, "tiny": 8.0}   # eval-split perplexity, per model size

# ---- data (txl_data.py): FlagPerf's data/wikitext-<split>.arrow under <data_dir>
train_split = "train"
eval_split = "test"           # FlagPerf evaluates on the test split
tgt_len = 150                 # tokens per segment (FlagPerf's tgt_len, its group_texts block)
num_workers = 0               # segments are slices of one in-memory array

# ---- optimisation: FlagPerf's
global_batch_size = 160       # FlagPerf's train_batch_size 20 per GPU x 8
learning_rate = 2.5e-4
lr_decay = "cosine"           # FlagPerf's MixedAnnealingLR: cosine to eta_min 0
min_lr_ratio = 0.0
warmup_steps = 0
max_steps = 200000            # FlagPerf's max_step (it stops after max_epoch 10 or the target)
grad_clip_norm = 0.25
weight_decay = 0.0            # FlagPerf's Adam: AdamW without decay is Adam
eval_every_steps = 2000
seed = 42
