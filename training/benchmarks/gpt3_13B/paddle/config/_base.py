"""gpt3_13B (Paddle) defaults: GPT-3-13B causal-LM pretraining from scratch, FlagPerf's data layout and
parameter names. The parameters all four Paddle LLM cases share are in
chipperf_runtime/training/paddlellm/base.py; a vendor config may change only the names in
mutable_params.py; ``--set name=value`` may change any of them."""

from chipperf_runtime.training.paddlellm.base import *  # noqa: F403 - max_seq_length, degrees, optimiser, ...

# ---- model: "13b" is GPT-3-13B (13,111,183,360 parameters, paddlellm/arch.py); "tiny" (2 layers, hidden 64,
# 259 byte-level ids) is the CI size
model_size = "13b"

# ---- quality target: mean next-token loss on the validation windows. 13b: a setting
# (FlagPerf's own run never evaluates: its target_ppl check is commented out); tiny: measured
# on the CI corpus (README.md)
target_eval_loss = {"13b": 2.5, "tiny": 2.9}
