"""llava1.5_7b_continuetrain (PyTorch) defaults: LLaVA-1.5-7B continued from a checkpoint,
its projector trained on LLaVA-Pretrain's captions under the frozen CLIP tower and Vicuna-7B
decoder at model_max_length 2048, bf16, activation checkpointing, FSDP2 over every rank:
FlagPerf's llava1.5_7b_continuetrain (FlagScale's train_llava1.5_7b.yaml with FlagPerf's
overrides; the sources are in ../README.md).

Every public name here is a parameter; the ones every llmtrain case shares are in
chipperf_runtime/training/llmtrain/base.py (FlagScale's recipe overrides several, at the end).
A vendor config may change only the names listed in mutable_params.py; ``--set name=value``
may change any of them.
"""

from chipperf_runtime.training.driver.runmode_base import *  # noqa: F403 - run_mode, perf_warmup_steps, timed_steps

# ---- model: a size from llmtrain/llava_presets.py (llava1.5_7b's). "7b" is LLaVA-1.5-7B
# (7,063,427,072 parameters); "tiny" (2-layer vision tower and decoder, 28 px pictures) is the
# CI size. The checkpoint must be of the same size.
model_size = "7b"
# What trains: "pretrain" (FlagScale's freeze_ViT and freeze_LM: the projector alone, on the
# LLaVA-Pretrain captions); "finetune" would train the LLM too (llava1.5_7b's second stage; no
# target here for it)
stage = "pretrain"
prompt_version = ""           # LLaVA's --version: "" is the stage's ("plain": the image, then
                              # the caption); "v1": Vicuna's chat turns
seq_len = 2048                # FlagScale's seq_length
activation_checkpointing = True   # recompute each layer in backward

# ---- parallel layout: data parallel only (FSDP2 over every rank; FlagScale: TP 1, PP 1 with
# Megatron's distributed optimizer)
tensor_parallel = 1
reshard_after_forward = True  # FSDP2: free each layer's gathered weights after its forward

# ---- quality target (llmtrain/base.py) on the pretrain json's last eval_samples captions.
# 7b: llava1.5_7b's pretrain target (FlagPerf's nvidia README for llava1.5_7b: final pretrain
# loss 2.1025 on the same captions; FlagPerf's continuetrain reports throughput and MFU only),
# a setting not measured by chipperf; tiny: measured on prepare_data.py's pictures from the CI
# checkpoint (README)
target_eval_loss = {"7b": {"pretrain": 2.1}, "tiny": {"pretrain": 0.137}}

# ---- data and the checkpoint it continues from: a folder under the data dir holding a PyTorch
# distributed checkpoint of the same model size (llava1.5_7b writes one with save_checkpoint;
# FlagPerf reads <data_dir>/LLaVA_megatron/vicuna_instruct_clip336_mlp_tp1_combined_mcore, a
# Megatron checkpoint, which this case cannot read). Only the weights are loaded: AdamW and
# its schedule start afresh
checkpoint = "LLaVA_megatron/vicuna_instruct_clip336_mlp_tp1_combined_mcore"
eval_samples = 2560           # held out from the end of the json (FlagScale: eval_iters 10 x 256)

# ---- optimisation: FlagScale's (micro-batch 2, 256 samples a step, lr 1e-3, cosine)
global_batch_size = 256
micro_batch_size = 2
learning_rate = 1e-3

from chipperf_runtime.training.llmtrain.base import *  # noqa: E402, F403 - min_lr_ratio, ... cpu_threads

# ---- FlagScale's recipe where it differs from the shared defaults (with FlagPerf's
# train_iters = steps = 5000)
min_lr_ratio = 0.0            # cosine to Megatron's default min_lr 0
weight_decay = 0.0
warmup_steps = 150            # lr_warmup_fraction 0.03 of the 5000 steps
max_steps = 5000              # FlagPerf's config: steps = 5000
eval_every_steps = 1000       # eval_interval
log_every_steps = 1           # log_interval
