"""t5_3b (PyTorch) defaults: the seed's T5-3B recipe (Hugging Face's Gaudi2 vs A100 80GB
benchmark, run with Optimum Habana's / transformers' run_summarization.py): fine-tune T5-3B
from the data folder's t5-3b weights on CNN/DailyMail 3.0.0 summarisation (sources of 1024
tokens, summaries of 128, prefix "summarize: "), fp32, gradient checkpointing, AdamW 5e-5
(the Trainer's default) without weight decay or warmup, linear decay to 0 over 3 epochs, no
clipping, evaluated after every epoch by greedy generation and ROUGE-1.

Every public name here is a parameter; the shared ones are in
chipperf_runtime/training/hftext/base.py. A vendor config may change the names in
mutable_params.py.
"""

from chipperf_runtime.training.hftext.base import *  # noqa: F403 - global_batch_size, learning_rate, ... (see there)
from chipperf_runtime.training.hftext.hpugraphs_base import *  # noqa: F403 - hpu_graphs_for_training, hpu_graphs_for_inference (intel_gaudi)

model_size = "3b"             # "3b" (T5-3B) or "tiny" (the CI model): PRESETS
# ROUGE-1 (percent) of greedy summaries of the eval split, per model size (README)
target_rouge1 = {"3b": 40.5, "tiny": 95.0}
from_checkpoint = True        # start from <data_dir>/model/model.safetensors (False: random)
gradient_checkpointing = True  # recompute each T5 block in backward (the seed's setting)
zero_stage = 0                # DeepSpeed ZeRO: 0 = DistributedDataParallel (the seed's runs);
                              # 1, 2, 3 = optimizer state / + gradients / + parameters
                              # partitioned over the ranks (needs deepspeed in the image)

global_batch_size = 128       # the seed's A100 setting: 16 per card on 8 cards
learning_rate = 5e-5
weight_decay = 0.0
adam_eps = 1e-8
warmup_steps = 0
max_steps = 6729              # 3 epochs of 287,113 pairs in full batches of 128 (2243 each)
eval_every_steps = 2243       # once per epoch
eval_samples = 0              # every eval pair (CNN/DailyMail validation: 13,368)
grad_clip_norm = 0.0
log_every_steps = 50
dtype = "fp32"                # the seed's T5-3B runs are fp32 on both chips
