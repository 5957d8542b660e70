"""llama3_70B_continuetrain (PyTorch) defaults: Llama-3-70B continued from a checkpoint at 8k
context, bf16, tensor parallel 8 inside a node, 4 pipeline stages and FSDP2 over the rest:
FlagPerf's llama3_70B_continuetrain (FlagScale's train_llama3_70b_finetune.yaml with FlagPerf's
overrides; the sources are in ../README.md).

Every public name here is a parameter; the ones both 70B Llama cases share are in
chipperf_runtime/training/llmtrain/base70b.py. A vendor config may change only the names listed
in mutable_params.py; ``--set name=value`` may change any of them.
"""

from chipperf_runtime.training.llmtrain.base70b import *  # noqa: F403 - model_size, tensor_parallel, ... (see there)

# "70b" is Llama-3-70B (70,553,706,496 parameters)
seq_len = 8192                # tokens per sample (FlagScale's seq_length)
global_batch_size = 1024      # samples per optimizer step (FlagScale's; FlagPerf: steps x 1024 samples)

# ---- the checkpoint it continues from: a folder under the data dir holding a PyTorch
# distributed checkpoint of the same model size (llama3_70B writes one with save_checkpoint;
# FlagPerf reads <data_dir>/llama3_ckpt, a Megatron checkpoint, which this case cannot read).
# Only the weights are loaded: AdamW and its schedule start afresh (FlagScale's finetune: True)
checkpoint = "llama3_ckpt"

# ---- quality target (base.py): 70b: a setting, as llama3_70B's; tiny: measured on the CI
# corpus from the CI checkpoint (20 steps of llama3_70B's tiny CI config; README)
target_eval_loss = {"70b": 2.0, "tiny": 3.0}

# ---- optimisation: FlagScale's recipe (lr 5e-6 cosine to 0, 0.9/0.95, clip 1.0) with
# FlagPerf's overrides (500 steps, warm-up 51,200 samples = 50 steps)
learning_rate = 5e-6
min_lr_ratio = 0.0
warmup_steps = 50
max_steps = 500
weight_decay = 0.0            # FlagScale raises it from 0 to 5e-7 over the run (cosine): ~0 here
