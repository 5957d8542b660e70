# bert-pytorch, 1 node x 8 Gaudi2: the seed's phase-1 setting (Hugging Face's Gaudi2 vs A100
# benchmark: bf16, 32 per card; its 64-per-card point is the OVERRIDES of
# training/run_benchmarks/config/seed/test_conf_bert_phase1_Gaudi2x8_b64.py). Phase 1 is the
# data's sequence length (128): the case reads seq_len from the data folder. Global batch 256
# (32 per card): config/_base.py's, inherited.
from config_common import *  # noqa: F403 - the settings every topology shares
