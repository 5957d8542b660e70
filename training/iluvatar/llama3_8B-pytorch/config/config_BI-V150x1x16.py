# From FlagOpen/FlagPerf@1b5a0303 training/iluvatar/llama3_8B-megatron-deepspeed/config/config_BI-V150x1x16.py (values as FlagPerf sets them).
# ruff: noqa
# not carried (no such parameter in chipperf's case): tokenizer_path = "/data1/user_homes/lisen/codes/FlagPerf/training/benchmarks/llama3_8B/megatron-deepspeed/tokenizer_llama3.model"
# not carried (no such parameter in chipperf's case): localbs = 1
train_steps = 300
theoryflops = 192000000000000.0
# not carried (no such parameter in chipperf's case): megatron_path = "/workspace/megatron-deepspeed" # need to be aligned with DockerFile. In iluvatar, it's /workspace/ + Megatron-LM
tensor_parallel = 1
pipeline_parallel = 8
