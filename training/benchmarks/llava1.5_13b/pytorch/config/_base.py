"""llava1.5_13b (PyTorch) defaults: FlagPerf's llava1.5_13b recipe (its scripts/finetune.sh and
pretrain.sh, LLaVA-1.5's, the same as its llava1.5_7b's but for the model): LLaVA-1.5-13B at
model_max_length 2048, bf16, activation checkpointing, both stages (pretrain, then finetune)
in one run.

Every public name here is a parameter; the ones every llmtrain case shares are in
chipperf_runtime/training/llmtrain/base.py (FlagPerf's recipe overrides several, at the end).
A vendor config may change only the names listed in mutable_params.py; ``--set name=value``
may change any of them.
"""

from chipperf_runtime.training.driver.runmode_base import *  # noqa: F403 - run_mode, perf_warmup_steps, timed_steps

# ---- model: a size from llmtrain/llava_presets.py's LLAVA_13B. "13b" is LLaVA-1.5-13B
# (13,351,494,656 parameters); "tiny" (llava1.5_7b's: 2-layer vision tower and decoder, 28 px
# pictures) is the CI size.
model_size = "13b"
# FlagPerf's stages: "pretrain" trains the projector only (LLaVA's feature alignment on
# LAION-CC-SBU 558K captions; FlagPerf: 32 per GPU, lr 1e-3), "finetune" the projector and
# the LLM (the visual instruction tuning on mix665k; FlagPerf: 16 per GPU, lr 2e-5), "both"
# (FlagPerf's case) pretrain, then finetune from the pretrained projector, in one run. The
# vision tower is frozen in both. The knobs below are finetune's (and a single stage's);
# in "both" the pretrain stage takes pretrain_recipe's in their place.
stage = "both"
prompt_version = ""           # LLaVA's --version: "plain" (the image, then the first answer),
                              # "v1" (Vicuna's chat turns); "": the stage's (FlagPerf: pretrain
                              # plain, finetune v1)
seq_len = 2048                # model_max_length: a conversation is cut here
activation_checkpointing = True   # recompute each layer in backward (--gradient_checkpointing)

# ---- parallel layout: data parallel only (FSDP2 over every rank; FlagPerf: DeepSpeed ZeRO)
tensor_parallel = 1
reshard_after_forward = True  # FSDP2: free each layer's gathered weights after its forward

# ---- quality target (llmtrain/base.py) on the json's last eval_samples conversations, per
# model size and stage. 13b: FlagPerf's final training losses (its nvidia README for
# llava1.5_13b, A800 1x8: pretrain 2.2186, finetune 0.7759, from the published Vicuna-13B and
# CLIP weights), settings not measured by chipperf; tiny: llava1.5_7b's (the same preset,
# measured on prepare_data.py's generated pictures: llava1.5_7b's README)
target_eval_loss = {"13b": {"pretrain": 2.22, "finetune": 0.78},
                    "tiny": {"pretrain": 5.21, "finetune": 0.06}}

# ---- data
eval_samples = 1000           # held out from the end of the stage's json
save_checkpoint = ""          # a folder: every weight (tower, projector, LLM) written there after
                              # the last stage (PyTorch distributed checkpoint; a relative path
                              # is under the node's output dir); "": none

# ---- optimisation: AdamW (finetune.sh: 16 per GPU x 8 GPUs, lr 2e-5, cosine, warmup 3 %)
global_batch_size = 128       # samples per optimizer step, all ranks together
micro_batch_size = 16         # samples per data-parallel rank per forward; the rest accumulates
learning_rate = 2e-5          # peak (pretrain: 1e-3)

from chipperf_runtime.training.llmtrain.base import *  # noqa: E402, F403 - min_lr_ratio, ... cpu_threads

# ---- FlagPerf's recipe where it differs from the shared defaults
min_lr_ratio = 0.0            # cosine to zero (--lr_scheduler_type cosine)
weight_decay = 0.0            # --weight_decay 0.
adam_beta2 = 0.999            # the Trainer's AdamW default
warmup_steps = 156            # --warmup_ratio 0.03 of one epoch: 665,344 / 128 = 5,198 steps
max_steps = 5198              # --num_train_epochs 1: 665,344 / 128 (pretrain: 558,128 / 256 = 2,180)
grad_clip_norm = 1.0          # the Trainer's max_grad_norm
eval_every_steps = 500

# ---- stage "both": the pretrain stage's knobs where they differ from the finetune ones above
# (FlagPerf's scripts/pretrain.sh: 32 per GPU x 8 GPUs, lr 1e-3, one epoch of 558,128
# captions = 2,180 steps, 3 % warm-up); it may set global_batch_size, micro_batch_size,
# learning_rate, warmup_steps, max_steps, eval_every_steps, min_lr_ratio, prompt_version
pretrain_recipe = {"global_batch_size": 256, "micro_batch_size": 32, "learning_rate": 1e-3,
                   "warmup_steps": 66, "max_steps": 2180}
