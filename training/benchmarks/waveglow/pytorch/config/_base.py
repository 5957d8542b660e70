"""waveglow (PyTorch) defaults: WaveGlow on LJSpeech 1.1's audio (DLE's audio filelists),
segments of 8,000 samples, to a validation negative log-likelihood of -5.7 per audio sample
(DLE's A100 sample run: -5.72 at epoch 250, -5.99 at 1,000; README).

Every public name here is a parameter; the optimiser's and the loop's are shared with the
other loss-loop cases (chipperf_runtime/training/lossloop/base.py). A vendor config may change
the names in mutable_params.py.
"""

from chipperf_runtime.training.lossloop.base import *  # noqa: F403 - global_batch_size, learning_rate, ... (see there)

model_size = "full"           # "full" (NVIDIA's WaveGlow) or "tiny" (the CI model): glow_model.PRESETS
# validation loss: the flow's negative log-likelihood per audio sample, per model size
target = {"full": -5.7, "tiny": -2.0}

# ---- data (glow_data.py): DLE's audio filelists under <data_dir>
training_files = "filelists/ljs_audio_text_train_filelist.txt"
validation_files = "filelists/ljs_audio_text_val_filelist.txt"

# ---- optimisation: DLE's WaveGlow recipe (Adam, lr 1e-4, batch 10 per GPU with AMP, no
# clipping, 1,001 epochs); here AdamW without decay, constant after no warmup
global_batch_size = 80
learning_rate = 1e-4
min_lr_ratio = 1.0
max_steps = 160000            # 1,001 epochs of LJSpeech's 12,500 train clips at batch 80
grad_clip_norm = 0.0
eval_every_steps = 1000
