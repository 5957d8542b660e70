"""llama2_70B (PyTorch) defaults: Llama-2-70B causal-LM training, 4k context, bf16, tensor
parallel 8 inside a node, 4 pipeline stages and FSDP2 over the rest (FlagPerf's layout).

Every public name here is a parameter; the ones both 70B Llama cases share are in
chipperf_runtime/training/llmtrain/base70b.py. A vendor config may change only the names listed
in mutable_params.py; ``--set name=value`` may change any of them.
"""

from chipperf_runtime.training.llmtrain.base70b import *  # noqa: F403 - model_size, tensor_parallel, ... (see there)

# "70b" is Llama-2-70B (68,976,648,192 parameters)
seq_len = 4096                # tokens per sample (at most the size's max_position_embeddings)
global_batch_size = 44        # samples per optimizer step, all ranks together (FlagPerf's)
