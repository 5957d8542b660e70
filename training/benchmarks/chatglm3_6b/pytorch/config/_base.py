"""chatglm3_6b (PyTorch) defaults: ChatGLM3-6B causal-LM training at FlagPerf's 4096 tokens,
bf16, FSDP2 over every rank (tensor parallel 1: see run_pretraining.py).

Every public name here is a parameter; the ones every llmtrain case shares are in
chipperf_runtime/training/llmtrain/base.py. A vendor config may change only the names listed
in mutable_params.py; ``--set name=value`` may change any of them.
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

# ---- quality target (llmtrain/base.py) on the eval windows: 6b: a setting; tiny: measured
# (README)
target_eval_loss = {"6b": 2.3, "tiny": 3.4}

# ---- data: FlagPerf's openwebtext_chatglm3_100M.npy in the data dir (else train/ and eval/
# token shards or Megatron pairs: textlm/tokens.py)
eval_samples = 256            # evaluate on the first N eval windows (0: all)

# ---- optimisation: FlagPerf: 1 sequence per GPU x 8 GPUs, no accumulation
global_batch_size = 8         # samples per optimizer step, all ranks together
micro_batch_size = 1          # samples per data-parallel rank per forward; the rest accumulates
learning_rate = 1e-5          # peak

from chipperf_runtime.training.llmtrain.base import *  # noqa: E402, F403 - min_lr_ratio, ... cpu_threads

warmup_steps = 100
max_steps = 3000              # FlagPerf's 1 epoch of 100M tokens is ~3,050 steps of 8 x 4096
