"""mixtral_8x7B_continuetrain (PyTorch) defaults: Mixtral-8x7B continued from a checkpoint at
4k context, bf16, FSDP2 over every rank: FlagPerf's mixtral_8x7B_continuetrain (FlagScale's
train_mixtral_8x7b.yaml with FlagPerf's overrides; the sources are in ../README.md).

Every public name here is a parameter; the ones every llmtrain case shares are in
chipperf_runtime/training/llmtrain/base.py. A vendor config may change only the names listed
in mutable_params.py; ``--set name=value`` may change any of them.
"""

from chipperf_runtime.training.driver.runmode_base import *  # noqa: F403 - run_mode, perf_warmup_steps, timed_steps

# ---- model: a size from model.json. "8x7b" is Mixtral-8x7B (46,702,792,704 parameters, 12.9B
# active per token); "tiny" (2 layers, hidden 128, 4 experts) is the CI size.
model_size = "8x7b"
seq_len = 4096                # tokens per sample (FlagPerf's throughput: 4096 x 64 tokens a step)
activation_checkpointing = True   # recompute each decoder layer in backward

# ---- parallel layout: FSDP2 over every rank. The checkpoint holds whole experts, so the
# experts are not split (tensor_parallel 1, no expert parallel; llmtrain/checkpoint.py)
tensor_parallel = 1
router_aux_loss_coef = 0.02   # weight of the router's load-balancing loss (Mixtral's)
reshard_after_forward = True  # FSDP2: free each layer's gathered weights after its forward

# ---- quality target (llmtrain/base.py): 8x7b: a setting, as mixtral_8x7B's; tiny: measured on
# the CI corpus from the CI checkpoint (README)
target_eval_loss = {"8x7b": 2.3, "tiny": 3.0}

# ---- data and the checkpoint it continues from: a folder under the data dir holding a
# PyTorch distributed checkpoint of the same model size (mixtral_8x7B writes one with
# save_checkpoint; FlagPerf reads a Megatron checkpoint there, which this case cannot read).
# Only the weights are loaded: AdamW and its schedule start afresh (FlagPerf's finetune: True)
eval_samples = 256            # evaluate on the first N eval samples (0: all)
checkpoint = "mixtral_ckpt"
save_checkpoint = ""          # a folder to write the weights to at the end ("": none)

# ---- optimisation: FlagPerf's overrides of FlagScale's recipe (global batch 64, lr 1e-6
# cosine to 1e-7, 1000 steps; FlagScale's 500 warm-up steps, clip 1.0, weight decay 0.1)
global_batch_size = 64
micro_batch_size = 1          # samples per data-parallel rank per forward; the rest accumulates
learning_rate = 1e-6

from chipperf_runtime.training.llmtrain.base import *  # noqa: E402, F403 - min_lr_ratio, ... cpu_threads

min_lr_ratio = 0.1            # 1e-7 / 1e-6
warmup_steps = 500
max_steps = 1000
