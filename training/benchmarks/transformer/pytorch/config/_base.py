"""transformer (PyTorch) defaults: FlagPerf's transformer recipe (NVIDIA's fairseq
Transformer): transformer_wmt_en_de_big_t2t on WMT14 en-de, Adam (0.9, 0.997) eps 1e-9 at
8.46e-4 with 4,000 warmup steps then fairseq's inverse square root, label smoothing 0.1, no
weight decay or clipping, fp32, to 27.0 BLEU.

Every public name here is a parameter; the shared ones are in
chipperf_runtime/training/hftext/base.py. A vendor config may change the names in
mutable_params.py.
"""

from chipperf_runtime.training.hftext.base import *  # noqa: F403 - global_batch_size, learning_rate, ... (see there)
from chipperf_runtime.training.hftext.hpugraphs_base import *  # noqa: F403 - hpu_graphs_for_training, hpu_graphs_for_inference (intel_gaudi)

model_size = "big"            # "big" (Transformer-big, pre-LN) or "tiny" (CI): PRESETS
# corpus BLEU-4 (percent) of greedy translations of the eval split, per model size (README)
target_bleu = {"big": 27.0, "tiny": 60.0}

# ---- data: fairseq-preprocess's files (textlm/fairseq_data.py)
source_lang = "en"
target_lang = "de"
train_subset = "train"
eval_subset = "test"          # FlagPerf scores BLEU on its gen_subset, newstest2014

# ---- optimisation
global_batch_size = 1280      # sentence pairs (README: FlagPerf batches by max_tokens)
learning_rate = 0.000846
lr_decay = "inverse_sqrt"
warmup_steps = 4000
adam_beta2 = 0.997
adam_eps = 1e-9
weight_decay = 0.0
grad_clip_norm = 0.0
label_smoothing = 0.1
max_steps = 100000
eval_every_steps = 3500       # about one epoch of WMT14's 4.5 M pairs
eval_samples = 0              # every eval pair
