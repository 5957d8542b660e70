"""wav2vec2 (PyTorch) defaults: wav2vec 2.0 BASE self-supervised pretraining on LibriSpeech
960 h, validated on dev-other, as FlagPerf's wav2vec2 does (its target: contrastive accuracy
0.605), on fixed crops of 10 s.

Every public name here is a parameter; the optimiser's and the loop's are shared with the
transformers text cases (chipperf_runtime/training/hftext/base.py). A vendor config may change the
names in mutable_params.py.
"""

from chipperf_runtime.training.hftext.base import *  # noqa: F403 - global_batch_size, learning_rate, ... (see there)

model_size = "base"           # "base" (wav2vec 2.0 BASE) or "tiny" (the CI model): PRESETS
# contrastive accuracy on the eval subset, per model size (README: how each was chosen)
target_accuracy = {"base": 0.605, "tiny": 0.55}

# ---- data (w2v_data.py): fairseq manifests <data_dir>/<subset>.tsv, FlagPerf's names
train_subset = "train-full-960"
valid_subset = "dev-other"
crop_samples = 160000         # audio samples per training sample (10 s at 16 kHz)
eval_samples = 0              # evaluate on the first N utterances of valid_subset, whole (0: all)
num_workers = 4               # DataLoader worker processes reading audio (0: in the loop)

# ---- optimisation: FlagPerf's Adam (0.9, 0.98), eps 1e-6, decay 0.01, lr 5e-4, 32k
# warmup steps then linear decay to 0 at 400k, clipping at 25
global_batch_size = 256       # crops, all ranks together
learning_rate = 5e-4
adam_beta2 = 0.98
warmup_steps = 32000
max_steps = 400000
grad_clip_norm = 25.0
gumbel_temp_max = 2.0         # quantizer temperature: max * decay**step, floored at min
gumbel_temp_min = 0.5
gumbel_temp_decay = 0.999995

eval_every_steps = 2000
dtype = "bf16"
