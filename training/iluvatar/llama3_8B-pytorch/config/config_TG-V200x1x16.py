# From FlagOpen/FlagPerf@1b5a0303 training/iluvatar/llama3_8B-megatron/config/config_TG-V200x1x16.py (values as FlagPerf sets them).
# ruff: noqa
# not carried (no such parameter in chipperf's case): tokenizer_path = "/home/zhiyuan/test/llama3-8b/tokenizer.model"
# not carried (no such parameter in chipperf's case): localbs = 1  #micro-batch-size
train_steps = 300  ##训练迭代次数
theoryflops = 340000000000000.0
# not carried (no such parameter in chipperf's case): megatron_path = "/usr/local/lib/python3.10/dist-packages/megatron" # need to be aligned with DockerFile. In NGCtorch, it's /workspace/ + Megatron-LM
tensor_parallel = 1  
pipeline_parallel = 4
