"""llama3_8B (PyTorch) defaults: Llama-3-8B causal-LM training, 8k context, bf16, tensor
parallel inside a node and FSDP2 over the rest.

Every public name here is a parameter; the ones every llmtrain case shares are in
chipperf_runtime/training/llmtrain/base.py. A vendor config may change only the names listed
in mutable_params.py; ``--set name=value`` may change any of them.
"""

from chipperf_runtime.training.driver.compile_base import *  # noqa: F403 - compile, compile_mode, compile_backend
from chipperf_runtime.training.driver.runmode_base import *  # noqa: F403 - run_mode, perf_warmup_steps, timed_steps

# ---- model: a size from run_pretraining.PRESETS. "8b" is Llama-3-8B (8,030,261,248
# parameters); "1b" is Llama-3.2-1B's shape (1,235,814,400, tied embeddings; one process: a
# single-GPU MFU figure); "tiny" (2 layers, hidden 128, 259 byte-level ids) is the CI size.
model_size = "8b"
seq_len = 8192                # tokens per sample (at most the size's max_position_embeddings)
activation_checkpointing = True   # recompute each decoder layer in backward

# ---- parallel layout (llmtrain/base.py)
tensor_parallel = 8
pipeline_parallel = 1
pipeline_schedule = "1f1b"    # "gpipe", "1f1b" or "interleaved_1f1b" (2 stages per rank)
context_parallel = 1          # ranks sharing each sequence (llmtrain/context.py): each holds
                              # 2 of 2 x context_parallel chunks, which must divide seq_len
sequence_parallel = False     # Megatron's sequence parallelism over the tensor-parallel group
                              # (llmtrain/sequence.py; needs tensor_parallel > 1)
reshard_after_forward = True  # FSDP2: free each layer's gathered weights after its forward

# ---- implementation: "native" (transformers' model, DTensor TP + FSDP2, chipperf's loop) or
# "megatron_core" (Megatron-Core's GPTModel, parallel_state, pipeline schedule and optimizer:
# llmtrain/nvidia/megatron.py; NVIDIA GPUs only). FlagPerf's megatron_core<version> keys set it.
implementation = "native"

# ---- quality target (llmtrain/base.py): 8b: a setting (see README); tiny: measured (README)
target_eval_loss = {"8b": 2.3, "1b": 2.3, "tiny": 2.6}

# ---- data
eval_samples = 256            # evaluate on the first N eval samples (0: all)

# ---- optimisation
global_batch_size = 256       # samples per optimizer step, all ranks together (2M tokens at 8k)
micro_batch_size = 1          # samples per data-parallel rank per forward; the rest accumulates
learning_rate = 3e-4          # peak (Llama 3 8B)

from chipperf_runtime.training.llmtrain.base import *  # noqa: E402, F403 - min_lr_ratio, ... cpu_threads
