"""tacotron2 (PyTorch) defaults: Tacotron 2 on LJSpeech 1.1's mel spectrograms (DLE's
filelists), to FlagPerf's target validation loss 0.4852.

Every public name here is a parameter; the optimiser's and the loop's are shared with the
other loss-loop cases (chipperf_runtime/training/lossloop/base.py). A vendor config may change
the names in mutable_params.py.
"""

from chipperf_runtime.training.lossloop.base import *  # noqa: F403 - global_batch_size, learning_rate, ... (see there)

model_size = "full"           # "full" (Tacotron 2) or "tiny" (the CI model): taco_model.PRESETS
# validation loss (mel MSE before + after the post-net + stop-token BCE), per model size
target = {"full": 0.4852, "tiny": 1.75}

# ---- data (taco_data.py): FlagPerf's filelists under <data_dir>
training_files = "filelists/ljs_mel_text_train_filelist.txt"
validation_files = "filelists/ljs_mel_text_val_filelist.txt"

# ---- optimisation: DLE's Tacotron2 recipe (Adam, lr 1e-3, weight decay 1e-6, clip 1.0,
# batch 128); DLE anneals by 0.3 at epochs 500/1000/1500, here a linear decay to max_steps
global_batch_size = 128
learning_rate = 1e-3
weight_decay = 1e-6
adam_eps = 1e-8
max_steps = 150000            # 1,500 epochs of LJSpeech's 12,500 train clips at batch 128
grad_clip_norm = 1.0
eval_every_steps = 1000
