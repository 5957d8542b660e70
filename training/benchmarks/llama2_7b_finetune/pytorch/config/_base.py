"""llama2_7b_finetune (PyTorch) defaults: FlagPerf's llama2_7b_finetune recipe, LoRA (peft)
on Llama-2-7B's query and value maps with the base frozen, SAMSum dialogue summaries at
4096 tokens, 2 samples per step on one GPU.

Every public name here is a parameter; the ones every llmtrain case shares are in
chipperf_runtime/training/llmtrain/base.py (FlagPerf's recipe overrides several, at the end).
A vendor config may change only the names listed in mutable_params.py; ``--set name=value``
may change any of them.
"""

from chipperf_runtime.training.driver.runmode_base import *  # noqa: F403 - run_mode, perf_warmup_steps, timed_steps

# ---- model: a size from run_pretraining.PRESETS. "7b" is Llama-2-7B (6,738,415,616 base
# parameters); "tiny" (2 layers, hidden 128, 259 byte-level ids) is the CI size.
model_size = "7b"
seq_len = 4096                # tokens per sample (FlagPerf's seq_length / max_position_embeddings)
activation_checkpointing = True   # recompute each decoder layer in backward

# ---- LoRA (FlagPerf's model/model.py lora_config, peft's LoraConfig)
lora_rank = 8                 # r: each adapter is A [r, in] and B [out, r]
lora_alpha = 32               # the adapter's update is scaled by lora_alpha / lora_rank
lora_dropout = 0.05           # dropout on the adapter's input
lora_target_modules = ["q_proj", "v_proj"]   # the adapted linear maps of every decoder layer

# ---- parallel layout: data parallel only (FSDP2 shards the frozen base and the adapters
# over every rank); a LoRA case refuses tensor_parallel above 1.
tensor_parallel = 1
reshard_after_forward = True  # FSDP2: free each layer's gathered weights after its forward

# ---- quality target (llmtrain/base.py) on samsum's validation split: 7b: a setting, not
# measured by chipperf (FlagPerf's target is MMLU accuracy 0.4 from Meta's pretrained weights;
# see README); tiny: measured on prepare_data.py's generated dialogues (README).
target_eval_loss = {"7b": 1.0, "tiny": 3.7}

# ---- data
eval_samples = 256            # evaluate on the first N eval windows (0: all)

# ---- optimisation: AdamW on the adapters (FlagPerf: lr 1e-4, weight decay 0)
global_batch_size = 2         # samples per optimizer step, all ranks together (FlagPerf: 2)
micro_batch_size = 2          # samples per data-parallel rank per forward; the rest accumulates
learning_rate = 1e-4          # peak

from chipperf_runtime.training.llmtrain.base import *  # noqa: E402, F403 - min_lr_ratio, ... cpu_threads

# ---- FlagPerf's recipe where it differs from the shared defaults
min_lr_ratio = 0.72           # cosine to 0.72 x lr: FlagPerf's StepLR (gamma 0.85 per epoch)
                              # ends its 3 epochs at 0.85^2 = 0.72
weight_decay = 0.0
adam_beta2 = 0.999            # torch's AdamW default (FlagPerf's optimizer)
warmup_steps = 0              # FlagPerf warms up none
max_steps = 30000             # the schedule's length; training stops here if not converged
grad_clip_norm = 0.0          # FlagPerf does not clip (0: no clipping)
eval_every_steps = 1000
seed = 42                     # FlagPerf's seed
