"""longformer (PyTorch) defaults: FlagPerf's longformer recipe. longformer-base-4096, built
from its config with random weights as FlagPerf builds it, masked-LM training on FlagPerf's
wikitext-2 rows of 1024 (15 % of the non-special tokens masked as transformers'
DataCollatorForLanguageModeling masks them), AdamW 5e-5 with weight decay 0.01, fp32, to 0.64
MLM accuracy.

Every public name here is a parameter; the shared ones are in
chipperf_runtime/training/hftext/base.py. A vendor config may change the names in
mutable_params.py.
"""

from chipperf_runtime.training.hftext.base import *  # noqa: F403 - global_batch_size, learning_rate, ... (see there)
from chipperf_runtime.training.hftext.hpugraphs_base import *  # noqa: F403 - hpu_graphs_for_training, hpu_graphs_for_inference (intel_gaudi)

model_size = "base-4096"      # "base-4096" (allenai/longformer-base-4096) or "tiny" (CI): PRESETS
# MLM accuracy at the masked positions of the eval split, per model size (README)
target_accuracy = {"base-4096": 0.64, "tiny": 0.5}

mask_token_id = 50264         # RoBERTa's <mask>

# ---- optimisation: FlagPerf's AdamW(lr=5e-5, weight_decay=0.01), constant rate
global_batch_size = 128       # FlagPerf: 16 per GPU on 8 GPUs
learning_rate = 5e-5
weight_decay = 0.01
warmup_steps = 0
min_lr_ratio = 1.0            # FlagPerf keeps the rate constant
adam_eps = 1e-8
grad_clip_norm = 0.0
max_steps = 100000            # README: FlagPerf's max_epoch 1000 stops nothing before the target
eval_every_steps = 500
eval_samples = 0              # every eval row
dtype = "fp32"
