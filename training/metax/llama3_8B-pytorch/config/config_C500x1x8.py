# From FlagOpen/FlagPerf@1b5a0303 training/metax/llama3_8B-megatron/config/config_C500x1x8.py (values as FlagPerf sets them).
# ruff: noqa
# not carried (no such parameter in chipperf's case): tokenizer_path = "llama3_8b_hf"
# not carried (no such parameter in chipperf's case): localbs = 1
train_steps = 300
theoryflops = -1
# not carried (no such parameter in chipperf's case): megatron_path = "/workspace/Megatron-LM_metax" # need to be aligned with DockerFile. In NGCtorch, it's /workspace/ + Megatron-LM
tensor_parallel = 1
pipeline_parallel = 2
