"""aquila2_7b_finetune (PyTorch) defaults: Aquila2-7B fine-tuned from a checkpoint on
conversations, every weight trained, 2k context, bf16, FSDP2 over every rank: FlagPerf's
aquila2_7b_finetune (its flagscale_main.sh and config_A800x1x8.py; the sources are in
../README.md).

Every public name here is a parameter; the ones every llmtrain case shares are in
chipperf_runtime/training/llmtrain/base.py. A vendor config may change only the names listed
in mutable_params.py; ``--set name=value`` may change any of them.
"""

from chipperf_runtime.training.driver.runmode_base import *  # noqa: F403 - run_mode, perf_warmup_steps, timed_steps

# ---- model: a size from model.json. "7b" is Aquila2-7B (7,295,537,152 parameters); "tiny"
# (2 layers, hidden 128, 259 byte-level ids) is the CI size.
model_size = "7b"
seq_len = 2048                # FlagPerf's seqlength
activation_checkpointing = True   # recompute each decoder layer in backward

# ---- parallel layout (llmtrain/base.py): FSDP2 over every rank (FlagPerf: TP 1, PP 1)
tensor_parallel = 1
reshard_after_forward = True  # FSDP2: free each layer's gathered weights after its forward

# ---- quality target (llmtrain/base.py) on the held-out conversations: 7b: FlagPerf's nvidia
# README's final loss at its 1x8 TP1PP1DP8 row (2.61), a setting not measured by chipperf;
# tiny: measured on prepare_data.py's conversations from the CI checkpoint (README)
target_eval_loss = {"7b": 2.61, "tiny": 2.7}

# ---- data and the checkpoint it starts from: a folder under the data dir holding a PyTorch
# distributed checkpoint of the same model size (aquila2_7b writes one with save_checkpoint;
# FlagPerf reads a Megatron checkpoint from <data_dir>/checkpoints, which this case cannot
# read). Only the weights are loaded (FlagPerf: --no-load-optim --no-load-rng --finetune)
eval_samples = 256            # evaluate on the first N eval windows (0: all)
checkpoint = "checkpoints"
save_checkpoint = ""          # a folder to write the fine-tuned weights to at the end ("": none)

# ---- optimisation: FlagPerf's (micro-batch 1 x 9 accumulation steps x 8 GPUs = 72 samples
# a step; lr 9.65e-6, 10 % warm-up)
global_batch_size = 72
micro_batch_size = 1
learning_rate = 9.65e-6

from chipperf_runtime.training.llmtrain.base import *  # noqa: E402, F403 - min_lr_ratio, ... cpu_threads

min_lr_ratio = 0.0            # FlagPerf: --min-lr 0.0 (linear decay there, cosine here)
warmup_steps = 68             # --lr-warmup-fraction 0.1 of the 679 steps
max_steps = 679               # train_tokens 1e8 / 2048 / 72, rounded up
