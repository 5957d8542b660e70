"""bert (Paddle) defaults: BERT-large masked-LM pretraining, sequences of the data's length.

Every public name here is a parameter. A vendor config may change only the names listed in
mutable_params.py; ``--set name=value`` may change any of them. The parameters both bert cases
share (model size, target, data, optimisation, evaluation) are in
chipperf_runtime/training/textlm/bert_base.py, so the two frameworks train the same model on the
same data to the same target; this file adds Paddle's numerics and threads.
"""

from chipperf_runtime.training.textlm.bert_base import *  # noqa: F403 - model_size, target_mlm_accuracy, ... (see there)

# ---- numerics and devices
dtype = "fp32"                # "fp32", "bf16" or "fp16" (Paddle AMP O1; fp16 with loss scaling)
cpu_threads = 0               # OMP threads per rank on CPU; 0: the node's cores / nproc_per_node
seed = 1234
