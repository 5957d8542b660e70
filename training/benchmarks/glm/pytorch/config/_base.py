"""glm (PyTorch) defaults: FlagPerf's glm recipe (its config/_base.py and nvidia configs):
GLM-Large from GLM's released blocklm-large-blank weights, fine-tuned on ReCoRD's cloze
samples of 512 tokens, AdamW 1e-5 (weight decay 0.1, eps 1e-8), 10 % warmup then linear
decay to 0.1 x over FlagPerf's 4,338 decay steps, clipping at 1.0, 8 samples per GPU,
evaluation every 19,200 samples, to 0.8 accuracy.

Every public name here is a parameter; the shared ones are in
chipperf_runtime/training/hftext/base.py. A vendor config may change the names in
mutable_params.py.
"""

from chipperf_runtime.training.hftext.base import *  # noqa: F403 - global_batch_size, learning_rate, ... (see there)
from chipperf_runtime.training.hftext.hpugraphs_base import *  # noqa: F403 - hpu_graphs_for_training, hpu_graphs_for_inference (intel_gaudi)

model_size = "large"          # "large" (GLM-Large) or "tiny" (the CI model): PRESETS
# share of eval samples whose best-scored candidate is correct, per model size (README)
target_accuracy = {"large": 0.8, "tiny": 0.8}

# ---- data: FlagPerf's names and paths, relative to the data dir (hftext/record.py)
train_data = "ReCoRD/glm_train_eval_hdf5_sparse/train_hdf5/train_sparse.hdf5"
eval_data = "ReCoRD/glm_train_eval_hdf5_sparse/eval_hdf5/eval_sparse.hdf5"
init_checkpoint = "blocklm-large-blank/200000/mp_rank_00_model_states.pt"   # GLM's weights
from_checkpoint = True        # start from them (False: random initialisation)

# ---- optimisation: FlagPerf's
global_batch_size = 64        # FlagPerf 1x8: 8 per GPU
learning_rate = 1e-5
min_lr_ratio = 0.1            # FlagPerf's lr_decay_ratio
weight_decay = 0.1
adam_eps = 1e-8
warmup_steps = 434            # FlagPerf's warmup 0.1 of lr_decay_iters 4,338
max_steps = 4338              # FlagPerf's lr_decay_iters (it stops at max_samples_termination)
eval_every_steps = 300        # FlagPerf's eval_interval_samples 600 x 8 x 4 / 64
eval_samples = 0              # every eval sample
dtype = "bf16"                # FlagPerf: fp16 (FP16_Module; chipperf's fp16 is autocast + GradScaler)
seed = 10483
