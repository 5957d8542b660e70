"""llama3_8B (PyTorch) defaults: Llama-3-8B causal-LM training, 8k context, bf16, tensor
parallel inside a node and FSDP2 over the rest.

Every public name here is a parameter. A vendor config may change only the names listed in
mutable_params.py; ``--set name=value`` may change any of them.
"""

from chipperf_runtime.training.driver.compile_base import *  # noqa: F403 - compile, compile_mode, compile_backend
from chipperf_runtime.training.driver.runmode_base import *  # noqa: F403 - run_mode, perf_warmup_steps, timed_steps

# ---- model: a size from run_pretraining.PRESETS. "8b" is Llama-3-8B (8,030,261,248
# parameters); "1b" is Llama-3.2-1B's shape (1,235,814,400, tied embeddings; one process: a
# single-GPU MFU figure); "tiny" (2 layers, hidden 128, 259 byte-level ids) is the CI size.
model_size = "8b"
seq_len = 8192                # tokens per sample (at most the size's max_position_embeddings)
activation_checkpointing = True   # recompute each decoder layer in backward

# ---- parallel layout: world = pipeline_parallel x data parallel x tensor_parallel. The
# tensor-parallel ranks of a group are consecutive and sit inside one node (tensor_parallel
# divides the processes per node); FSDP2 shards parameters, gradients and AdamW states over the
# data-parallel ranks. Pipeline stages hold equal contiguous slices of the decoder layers
# (pipeline_parallel x stages per rank divides num_hidden_layers); a step's micro-batches
# (global_batch_size / data parallel / micro_batch_size) go through the schedule together.
tensor_parallel = 8
pipeline_parallel = 1
pipeline_schedule = "1f1b"    # "gpipe", "1f1b" or "interleaved_1f1b" (2 stages per rank)
reshard_after_forward = True  # FSDP2: free each layer's gathered weights after its forward

# ---- quality target: mean next-token cross entropy (nats/token) on the eval split, per
# size. Not vendor-settable. 8b: a setting for tokenised English web text, not measured by
# chipperf (see README); tiny: measured on prepare_data.py's corpus (README).
target_eval_loss = {"8b": 2.3, "1b": 2.3, "tiny": 2.6}

# ---- data
eval_samples = 256            # evaluate on the first N eval samples (0: all)

# ---- optimisation: AdamW (no decay on RMSNorm weights), linear warmup then cosine decay
global_batch_size = 256       # samples per optimizer step, all ranks together (2M tokens at 8k)
micro_batch_size = 1          # samples per data-parallel rank per forward; the rest accumulates
learning_rate = 3e-4          # peak (Llama 3 8B)
min_lr_ratio = 0.1
weight_decay = 0.1
adam_beta1 = 0.9
adam_beta2 = 0.95
adam_eps = 1e-8
warmup_steps = 2000
max_steps = 500000            # the schedule's length; training stops here if not converged
grad_clip_norm = 1.0

# ---- evaluation and logging
eval_every_steps = 500
log_every_steps = 10          # STEP_END every N optimizer steps

# ---- numerics and host
dtype = "bf16"                # "bf16" (FSDP2 mixed precision, fp32 master weights) or "fp32"
seed = 1234
cpu_threads = None            # torch threads per rank on CPU (None: OMP_NUM_THREADS, else
                              # the usable cores shared among the node's ranks)
