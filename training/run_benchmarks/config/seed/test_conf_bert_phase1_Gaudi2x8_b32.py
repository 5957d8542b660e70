'''BERT-large pretraining phase 1 (sequences of 128) on 8 Gaudi2, bf16, 32 per card (global 256:
training/intel_gaudi/bert-pytorch/config/config_Gaudi2x1x8.py).
The seed: Hugging Face's Habana Gaudi2 vs NVIDIA A100 80GB benchmark posts (docs/seed-benchmarks.md
has its figures beside chipperf's and the settings that differ). Plan it with
`chipperf plan --cluster training/run_benchmarks/config/cluster_conf.py
--test training/run_benchmarks/config/seed/test_conf_bert_phase1_Gaudi2x8_b32.py`
(edit HOSTS there for the real hosts); not run by chipperf (no such chip here).'''
VENDOR = "intel_gaudi"

CASES = {
    "bert:pytorch_optimum_habana:Gaudi2:1:8:1": "/raid/dataset/bert_phase1_seq128",
}

SHM_SIZE = "64g"
RESULT_ROOT = "result"
