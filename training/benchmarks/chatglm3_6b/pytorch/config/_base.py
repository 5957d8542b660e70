"""chatglm3_6b (PyTorch) defaults: ChatGLM3-6B causal-LM training at FlagPerf's 4096 tokens,
bf16, FSDP2 over every rank (tensor parallel 1: see run_pretraining.py).

Every public name here is a parameter. A vendor config may change only the names listed in
mutable_params.py; ``--set name=value`` may change any of them.
"""

from chipperf_runtime.training.driver.runmode_base import *  # noqa: F403 - run_mode, perf_warmup_steps, timed_steps

# ---- model: a size from run_pretraining.PRESETS. "6b" is ChatGLM3-6B (6,243,584,000
# parameters); "tiny" (2 layers, hidden 128, 259 byte-level ids) is the CI size.
model_size = "6b"
seq_len = 4096                # tokens per sample (FlagPerf's seqlength)
activation_checkpointing = True   # recompute each decoder layer in backward

# ---- parallel layout: FSDP2 shards parameters, gradients and AdamW states over every rank
# (FlagPerf: DeepSpeed data parallel). tensor_parallel must stay 1 (run_pretraining.py).
tensor_parallel = 1
reshard_after_forward = True  # FSDP2: free each layer's gathered weights after its forward

# ---- quality target: mean next-token cross entropy (nats/token) on the eval windows, per
# size. Not vendor-settable. 6b: a setting for tokenised web text, not measured by chipperf;
# tiny: measured on prepare_data.py's corpus (README).
target_eval_loss = {"6b": 2.3, "tiny": 3.4}

# ---- data: FlagPerf's openwebtext_chatglm3_100M.npy in the data dir (else train/ and eval/
# token shards or Megatron pairs: textlm/tokens.py)
eval_samples = 256            # evaluate on the first N eval windows (0: all)

# ---- optimisation: AdamW (no decay on RMSNorm weights and biases), linear warmup then cosine
# FlagPerf: 1 sequence per GPU x 8 GPUs, no accumulation
global_batch_size = 8         # samples per optimizer step, all ranks together
micro_batch_size = 1          # samples per data-parallel rank per forward; the rest accumulates
learning_rate = 1e-5          # peak
min_lr_ratio = 0.1
weight_decay = 0.1
adam_beta1 = 0.9
adam_beta2 = 0.95
adam_eps = 1e-8
warmup_steps = 100
max_steps = 3000              # FlagPerf's 1 epoch of 100M tokens is ~3,050 steps of 8 x 4096
grad_clip_norm = 1.0

# ---- evaluation and logging
eval_every_steps = 500
log_every_steps = 10          # STEP_END every N optimizer steps

# ---- numerics and host
dtype = "bf16"                # "bf16" (FSDP2 mixed precision, fp32 master weights) or "fp32"
seed = 1234
cpu_threads = None            # torch threads per rank on CPU (None: OMP_NUM_THREADS, else
                              # the usable cores shared among the node's ranks)
