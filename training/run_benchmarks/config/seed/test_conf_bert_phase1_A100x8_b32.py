'''BERT-large pretraining phase 1 (sequences of 128) on 8 A100 80GB, 32 per card (global 256:
config_A100x1x8.py as shipped).
The seed: Hugging Face's Habana Gaudi2 vs NVIDIA A100 80GB benchmark posts (docs/seed-benchmarks.md
has its figures beside chipperf's and the settings that differ). Plan it with
`chipperf plan --cluster training/run_benchmarks/config/cluster_conf.py
--test training/run_benchmarks/config/seed/test_conf_bert_phase1_A100x8_b32.py`
(edit HOSTS there for the real hosts); not run by chipperf (no such chip here).'''
VENDOR = "nvidia"

CASES = {
    "bert:pytorch_2.13:A100:1:8:1": "/raid/dataset/bert_phase1_seq128",
}

SHM_SIZE = "64g"
RESULT_ROOT = "result"
