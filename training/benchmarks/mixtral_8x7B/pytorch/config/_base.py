"""mixtral_8x7B (PyTorch) defaults: Mixtral-8x7B causal-LM training, 4k context, bf16, tensor
parallel (attention and every expert) inside a node, FSDP2 over the rest.

Every public name here is a parameter; the ones every llmtrain case shares are in
chipperf_runtime/training/llmtrain/base.py. A vendor config may change only the names listed
in mutable_params.py; ``--set name=value`` may change any of them.
"""

from chipperf_runtime.training.driver.runmode_base import *  # noqa: F403 - run_mode, perf_warmup_steps, timed_steps

# ---- model: a size from run_pretraining.PRESETS. "8x7b" is Mixtral-8x7B (46,702,792,704
# parameters, 12.9B active per token); "tiny" (2 layers, hidden 128, 4 experts) is the CI size.
model_size = "8x7b"
seq_len = 4096                # tokens per sample (at most the size's max_position_embeddings)
activation_checkpointing = True   # recompute each decoder layer in backward

# ---- parallel layout (llmtrain/base.py), no pipeline: world = data parallel x
# context_parallel x tensor_parallel
tensor_parallel = 8
# expert parallelism: the experts of each layer split over expert_parallel data-parallel ranks
# (it divides num_local_experts and the data-parallel degree); tokens go to their experts'
# ranks by all-to-all. The experts are FSDP-sharded over data parallel / expert_parallel.
expert_parallel = 1
context_parallel = 1          # ranks sharing each sequence (llmtrain/context.py): each holds
                              # 2 of 2 x context_parallel chunks, which must divide seq_len
sequence_parallel = False     # Megatron's sequence parallelism over the tensor-parallel group
                              # (llmtrain/sequence.py; needs tensor_parallel > 1)
router_aux_loss_coef = 0.02   # weight of the router's load-balancing loss (Mixtral's)
reshard_after_forward = True  # FSDP2: free each layer's gathered weights after its forward

# ---- implementation: "native" (transformers' model, DTensor TP + FSDP2, chipperf's loop) or
# "megatron_core" (Megatron-Core's GPTModel, parallel_state, pipeline schedule and optimizer:
# llmtrain/nvidia/megatron.py; NVIDIA GPUs only). FlagPerf's megatron_core<version> keys set it.
implementation = "native"

# ---- quality target (llmtrain/base.py): 8x7b: a setting (see README); tiny: measured (README)
target_eval_loss = {"8x7b": 2.3, "tiny": 2.6}

# ---- data
eval_samples = 256            # evaluate on the first N eval samples (0: all)
save_checkpoint = ""          # a folder: the trained weights written there at the end (PyTorch
                              # distributed checkpoint; a relative path is under the node's
                              # output dir) for mixtral_8x7B_continuetrain; "": none. Needs
                              # tensor_parallel 1 and expert_parallel 1 (llmtrain/checkpoint.py)

# ---- optimisation
global_batch_size = 512       # samples per optimizer step, all ranks together (2M tokens at 4k)
micro_batch_size = 1          # samples per data-parallel rank per forward; the rest accumulates
learning_rate = 3e-4          # peak

from chipperf_runtime.training.llmtrain.base import *  # noqa: E402, F403 - min_lr_ratio, ... cpu_threads
