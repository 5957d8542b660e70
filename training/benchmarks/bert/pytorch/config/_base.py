"""bert (PyTorch) defaults: BERT-large masked-LM pretraining, sequences of the data's length.

Every public name here is a parameter. A vendor config may change only the names listed in
mutable_params.py; ``--set name=value`` may change any of them. The parameters both bert cases
share (model size, target, data, optimisation, evaluation) are in
training/benchmarks/textlm/bert_base.py; this file adds PyTorch's numerics.
"""

from textlm.bert_base import *  # noqa: F403 - model_size, target_mlm_accuracy, ... (see there)

# ---- numerics and devices
dtype = "fp32"                # "fp32" or "bf16" (autocast)
seed = 1234
