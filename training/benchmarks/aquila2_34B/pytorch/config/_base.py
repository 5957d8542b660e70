"""aquila2_34B (PyTorch) defaults: Aquila2-34B causal-LM training, 4k context, bf16, tensor
parallel 4 inside a node with sequence parallelism, 4 pipeline stages and FSDP2 over the rest:
FlagPerf's aquila2_34B_container layout (TP 4, PP 4, --sequence-parallel, micro batch 1,
global batch 32, seq 4096: FlagOpen/FlagPerf@1b5a0303
training/benchmarks/aquila2_34B_container/in_container/config.py and singlenode_run.sh).

The 70B Llama cases' defaults (llmtrain/base70b.py: bf16, activation checkpointing, 1F1B, ...)
with what differs for this model set after them. Every public name is a parameter; a vendor
config may change only the names listed in mutable_params.py; ``--set name=value`` any.
"""

from chipperf_runtime.training.llmtrain.base70b import *  # noqa: F403 - tensor_parallel, ... (see there)

# "34b" is Aquila2-34B (33,693,554,688 parameters); "tiny" the CI size
model_size = "34b"
seq_len = 4096                # FlagPerf's SEQLENGTH for aquila2-34B
tensor_parallel = 4           # FlagPerf's TENSOR_PARALLEL
pipeline_parallel = 4         # FlagPerf's PIPELINE_PARALLEL
sequence_parallel = True      # FlagScale's --sequence-parallel

# ---- quality target (base.py): 34b: a setting (see README); tiny: measured (README)
target_eval_loss = {"34b": 2.0, "tiny": 2.6}

# ---- optimisation (FlagPerf's launch: lr 1.5e-4 to 1.5e-5 cosine, AdamW 0.9/0.95, wd 0.1, clip 1)
global_batch_size = 32        # FlagPerf's GLOBAL_BATCHSIZE (32 accumulation steps at data parallel 1)
micro_batch_size = 1          # FlagPerf's MICRO_BATCHSIZE
learning_rate = 1.5e-4
