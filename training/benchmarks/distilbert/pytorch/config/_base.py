"""distilbert (PyTorch) defaults: DistilBERT-base masked-LM pretraining on sequences of the
data's length (512 in the real corpus), with BERT's optimiser and DistilBERT's batch (4K
sequences in the paper; 256 here, BERT's).

Every public name here is a parameter; the shared ones are in
chipperf_runtime/training/hftext/base.py. A vendor config may change the names in
mutable_params.py.
"""

from chipperf_runtime.training.hftext.base import *  # noqa: F403 - global_batch_size, learning_rate, ... (see there)
from chipperf_runtime.training.hftext.hpugraphs_base import *  # noqa: F403 - hpu_graphs_for_training, hpu_graphs_for_inference (intel_gaudi)

model_size = "base"           # "base" (DistilBERT-base) or "tiny" (the CI model): PRESETS
# MLM accuracy on the eval split, per model size (README: how each was chosen)
target_accuracy = {"base": 0.65, "tiny": 0.12}

global_batch_size = 256
learning_rate = 1e-4
warmup_steps = 10000
max_steps = 1000000
dtype = "bf16"
