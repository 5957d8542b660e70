'''T5-3B summarisation fine-tuning on CNN/DailyMail, fp32, gradient checkpointing, 8 Gaudi2, 1 per
card (training/intel_gaudi/t5_3b-pytorch/config/config_Gaudi2x1x8.py).
The seed: Hugging Face's Habana Gaudi2 vs NVIDIA A100 80GB benchmark posts (docs/seed-benchmarks.md
has its figures beside chipperf's and the settings that differ). Plan it with
`chipperf plan --cluster training/run_benchmarks/config/cluster_conf.py
--test training/run_benchmarks/config/seed/test_conf_t5_3b_Gaudi2x8.py`
(edit HOSTS there for the real hosts); not run by chipperf (no such chip here).'''
VENDOR = "intel_gaudi"

CASES = {
    "t5_3b:pytorch_optimum_habana:Gaudi2:1:8:1": "/raid/dataset/t5_3b_cnn_dailymail",
}

SHM_SIZE = "64g"
RESULT_ROOT = "result"
