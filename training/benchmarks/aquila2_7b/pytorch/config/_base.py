"""aquila2_7b (PyTorch) defaults: Aquila2-7B causal-LM training, 2k context, bf16, FSDP2
over every rank (tensor parallel 1, as FlagPerf's aquila2_7b flagscale configs lay it out).

Every public name here is a parameter; the ones every llmtrain case shares are in
chipperf_runtime/training/llmtrain/base.py. A vendor config may change only the names listed
in mutable_params.py; ``--set name=value`` may change any of them.
"""

from chipperf_runtime.training.driver.runmode_base import *  # noqa: F403 - run_mode, perf_warmup_steps, timed_steps

# ---- model: a size from run_pretraining.PRESETS. "7b" is Aquila2-7B (7,295,537,152
# parameters); "tiny" (2 layers, hidden 128, 259 byte-level ids) is the CI size.
model_size = "7b"
seq_len = 2048                # tokens per sample (at most the size's max_position_embeddings)
activation_checkpointing = True   # recompute each decoder layer in backward

# ---- parallel layout (llmtrain/base.py), no pipeline: world = data parallel x tensor_parallel
tensor_parallel = 1
reshard_after_forward = True  # FSDP2: free each layer's gathered weights after its forward

# ---- quality target (llmtrain/base.py): 7b: a setting (see README); tiny: measured (README)
target_eval_loss = {"7b": 2.3, "tiny": 2.6}

# ---- data
eval_samples = 256            # evaluate on the first N eval samples (0: all)
save_checkpoint = ""          # a folder: the trained weights written there at the end (PyTorch
                              # distributed checkpoint; a relative path is under the node's
                              # output dir) for aquila2_7b_finetune; "": none

# ---- optimisation
global_batch_size = 1024      # samples per optimizer step, all ranks together (2M tokens at 2k)
micro_batch_size = 1          # samples per data-parallel rank per forward; the rest accumulates
learning_rate = 3e-4          # peak

from chipperf_runtime.training.llmtrain.base import *  # noqa: E402, F403 - min_lr_ratio, ... cpu_threads
