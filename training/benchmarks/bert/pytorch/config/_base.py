"""bert (PyTorch) defaults: BERT-large masked-LM pretraining, sequences of the data's length.

Every public name here is a parameter. A vendor config may change only the names listed in
mutable_params.py; ``--set name=value`` may change any of them. The parameters both bert cases
share (model size, target, data, optimisation, evaluation) are in
chipperf_runtime/training/textlm/bert_base.py; this file adds what the shared text case (hftext)
reads besides them.
"""

from chipperf_runtime.training.hftext.hpugraphs_base import *  # noqa: F403 - hpu_graphs_for_training, hpu_graphs_for_inference (intel_gaudi)
from chipperf_runtime.training.textlm.bert_base import *  # noqa: F403 - model_size, target_mlm_accuracy, ... (see there)

# ---- schedule: bert_base's linear warmup then linear decay to 0 at max_steps
min_lr_ratio = 0.0
lr_decay = "linear"

# ---- numerics and devices
dtype = "fp32"                # "fp32" or "bf16" (autocast)
cpu_threads = None            # torch threads per rank on CPU (None: OMP_NUM_THREADS, else the
                              # usable cores divided by the ranks on the node)
seed = 1234
