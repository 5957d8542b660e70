"""gpt2 (PyTorch) defaults: GPT-2 Medium on 1024-token windows with Megatron-LM's GPT-2
recipe (FlagPerf's gpt2: Adam 1.5e-4, cosine decay to 1e-5, 1% warmup, clipping at 1.0).

Every public name here is a parameter; the shared ones are in
chipperf_runtime/training/hftext/base.py. A vendor config may change the names in
mutable_params.py.
"""

from chipperf_runtime.training.hftext.base import *  # noqa: F403 - global_batch_size, learning_rate, ... (see there)
from chipperf_runtime.training.hftext.hpugraphs_base import *  # noqa: F403 - hpu_graphs_for_training, hpu_graphs_for_inference (intel_gaudi)

model_size = "medium"         # "medium" (GPT-2 Medium) or "tiny" (the CI model): PRESETS
# next-token top-1 accuracy on the eval split, per model size (README: how each was chosen)
target_accuracy = {"medium": 0.45, "tiny": 0.16}
seq_len = 1024                # tokens per sample (the model sees seq_len, predicts seq_len)

global_batch_size = 512       # sequences
learning_rate = 1.5e-4
min_lr_ratio = 1e-5 / 1.5e-4  # Megatron's min_lr 1e-5
lr_decay = "cosine"
adam_eps = 1e-8
warmup_steps = 3000           # 1% of max_steps
max_steps = 300000
eval_every_steps = 1000
eval_samples = 1000
dtype = "bf16"
# Megatron-LM pads GPT-2's 50,257-token vocabulary to a multiple of 128 (its default
# --make-vocab-size-divisible-by; FlagPerf's gpt2 is Megatron's): 50,304 rows, an LM head whose
# width suits the tensor cores. MFU counts the 50,257 real ones.
make_vocab_size_divisible_by = 128
