"""bert_hf (PyTorch) defaults: FlagPerf's bert_hf recipe. BERT-large continues masked-LM
training from bert-large-uncased's weights (<data_dir>/weights) on FlagPerf's OpenWebText token
files, rows of 512, 10 % of the positions masked, AdamW 5e-5 with linear decay and no warmup,
fp32, to 0.655 MLM accuracy.

Every public name here is a parameter; the shared ones are in
chipperf_runtime/training/hftext/base.py. A vendor config may change the names in
mutable_params.py.
"""

from chipperf_runtime.training.hftext.base import *  # noqa: F403 - global_batch_size, learning_rate, ... (see there)
from chipperf_runtime.training.hftext.hpugraphs_base import *  # noqa: F403 - hpu_graphs_for_training, hpu_graphs_for_inference (intel_gaudi)

model_size = "large"          # "large" (bert-large), "base" (bert-base) or "tiny" (CI): PRESETS
# MLM accuracy at the masked positions of the eval file, per model size (README)
target_accuracy = {"large": 0.655, "base": 0.655, "tiny": 0.5}

# ---- data: FlagPerf's names and values (hftext/flagperf_mlm.py)
datafilename = "openwebtext_bert_100M.npy"     # train tokens, in the data dir
valdatafilename = "openwebtext_bert_10M.npy"   # eval tokens
weight_dir = "weights"        # <data_dir>/<weight_dir>/model.safetensors: the starting weights
from_checkpoint = True        # start from them (False: random initialisation)
seq_len = 512                 # FlagPerf's seq_length
mask_ratio = 0.10             # share of all positions replaced by mask_token_id
mask_token_id = 103           # [MASK] in BERT's uncased vocabulary

# ---- optimisation: FlagPerf's AdamW(lr=5e-5), linear decay from the first step
global_batch_size = 96        # FlagPerf 1x8: 12 per GPU
learning_rate = 5e-5
warmup_steps = 0
adam_eps = 1e-8
grad_clip_norm = 0.0
max_steps = 6000              # the decay's end (README: FlagPerf stops after 3 epochs)
eval_every_steps = 2000       # about one epoch
eval_samples = 0              # every eval row
dtype = "fp32"
