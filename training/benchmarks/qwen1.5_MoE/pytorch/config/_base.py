"""qwen1.5_MoE (PyTorch) defaults: Qwen1.5-MoE-A2.7B causal-LM training, 4k context, bf16,
FSDP2 over every rank (tensor parallel 1; FlagPerf's megatron_pai case runs TP1 PP2 DP4).

Every public name here is a parameter; the ones every llmtrain case shares are in
chipperf_runtime/training/llmtrain/base.py. A vendor config may change only the names listed
in mutable_params.py; ``--set name=value`` may change any of them.
"""

from chipperf_runtime.training.driver.runmode_base import *  # noqa: F403 - run_mode, perf_warmup_steps, timed_steps

# ---- model: a size from run_pretraining.PRESETS. "a2.7b" is Qwen1.5-MoE-A2.7B
# (14,315,784,192 parameters, 2.7B active per token); "tiny" (2 layers, hidden 128, 8 experts)
# is the CI size.
model_size = "a2.7b"
seq_len = 4096                # tokens per sample (at most the size's max_position_embeddings)
activation_checkpointing = True   # recompute each decoder layer in backward

# ---- parallel layout (llmtrain/base.py), no pipeline: world = data parallel x tensor_parallel
tensor_parallel = 1
router_aux_loss_coef = 0.001  # weight of the router's load-balancing loss (Qwen2-MoE's)
reshard_after_forward = True  # FSDP2: free each layer's gathered weights after its forward

# ---- quality target (llmtrain/base.py): a2.7b: a setting (see README); tiny: measured (README)
target_eval_loss = {"a2.7b": 2.3, "tiny": 2.6}

# ---- data
eval_samples = 256            # evaluate on the first N eval samples (0: all)

# ---- optimisation
global_batch_size = 512       # samples per optimizer step, all ranks together (2M tokens at 4k;
                              # FlagPerf's qwen1.5_MoE: 512)
micro_batch_size = 1          # samples per data-parallel rank per forward; the rest accumulates
learning_rate = 3e-4          # peak

from chipperf_runtime.training.llmtrain.base import *  # noqa: E402, F403 - min_lr_ratio, ... cpu_threads
