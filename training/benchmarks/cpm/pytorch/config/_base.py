"""cpm (PyTorch) defaults: FlagPerf's cpm recipe (its config/_base.py and nvidia
config_A100x1x8.py): CPM-1 Medium from its released weights on 200-token windows, AdamW
5e-4 (beta2 0.99, eps 1e-8, weight decay 0.05), 20 % warmup then linear decay over 4,000
steps, 32 sequences per GPU, evaluation every 20,000 samples. The target is next-token
accuracy, not FlagPerf's embedding average (README.md: an untrained model scores above
FlagPerf's 0.92 on it).

Every public name here is a parameter; the shared ones are in
chipperf_runtime/training/hftext/base.py. A vendor config may change the names in
mutable_params.py.
"""

from chipperf_runtime.training.hftext.base import *  # noqa: F403 - global_batch_size, learning_rate, ... (see there)
from chipperf_runtime.training.hftext.hpugraphs_base import *  # noqa: F403 - hpu_graphs_for_training, hpu_graphs_for_inference (intel_gaudi)

model_size = "medium"         # "medium" (CPM-1 Medium) or "tiny" (the CI model): PRESETS
# next-token top-1 accuracy on the eval split, per model size (README: how each was chosen)
target_accuracy = {"medium": 0.40, "tiny": 0.7}
seq_len = 200                 # FlagPerf's seq_length
init_checkpoint = "cpm_model_states_medium.pt"   # CPM-1 Medium's released weights (data dir)
from_checkpoint = True        # start from them, as FlagPerf does (False: random initialisation)
# FlagPerf's raw-text layout (train.txt, valid.txt): CPM-1's tokenizer folder, relative to the
# data dir (None: bpe_3w_new, FlagPerf's name; hftext/flagperf_cpm.py)
tokenizer_dir = None

global_batch_size = 256       # FlagPerf 1x8: 32 per GPU
learning_rate = 5e-4
lr_decay = "linear"
weight_decay = 0.05
adam_beta2 = 0.99
adam_eps = 1e-8
warmup_steps = 800            # FlagPerf's warmup 0.2 of max_steps
max_steps = 4000
eval_every_steps = 80         # FlagPerf's eval_interval_samples 20,000 / 256, rounded up
eval_samples = 0              # every eval window
dtype = "bf16"                # FlagPerf: fp16 (chipperf's text cases: fp32 or bf16)
seed = 23333
