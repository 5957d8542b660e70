"""The defaults llama2_70B and llama3_70B share: a 70B Llama causal-LM trained in bf16 with
tensor parallel 8 inside a node, 4 pipeline stages and FSDP2 over the rest (FlagPerf's layout).
A case's ``config/_base.py`` star-imports this file and sets what differs after it: its
context (``seq_len``) and FlagPerf's ``global_batch_size`` for it. What every llmtrain case
shares (and the parallel layout's rules) is in base.py, imported below.

Every public name is a parameter (see docs/adding-a-case.md).
"""

from chipperf_runtime.training.driver.runmode_base import *  # noqa: F403 - run_mode, perf_warmup_steps, timed_steps

# ---- model: a size from the case's model.json presets: "70b" (the case's 70B model),
# "tiny" (4 layers, hidden 128, 259 byte-level ids) the CI size.
model_size = "70b"
seq_len = 4096                # tokens per sample (at most the size's max_position_embeddings)
activation_checkpointing = True   # recompute each decoder layer in backward

# ---- parallel layout (base.py)
tensor_parallel = 8
pipeline_parallel = 4
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

# ---- quality target (base.py): 70b: a setting (see README); tiny: measured (README)
target_eval_loss = {"70b": 2.0, "tiny": 2.6}

# ---- data
eval_samples = 256            # evaluate on the first N eval samples (0: all)
save_checkpoint = ""          # a folder: the trained weights written there at the end (PyTorch
                              # distributed checkpoint; a relative path is under the node's
                              # output dir) for the continue-training case; "": none

# ---- optimisation
global_batch_size = 512       # samples per optimizer step, all ranks together
micro_batch_size = 1          # samples per data-parallel rank per forward; the rest accumulates
learning_rate = 1.5e-4        # peak (Llama 2 paper, table 1: the 70B's)

from chipperf_runtime.training.llmtrain.base import *  # noqa: E402, F403 - min_lr_ratio, ... cpu_threads
