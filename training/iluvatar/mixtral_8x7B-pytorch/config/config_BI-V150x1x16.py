# From FlagOpen/FlagPerf@1b5a0303 training/iluvatar/mixtral_8x7B-megatron/config/config_BI-V150x1x16.py (values as FlagPerf sets them).
# ruff: noqa
# not carried (no such parameter in chipperf's case): mixtral_iluvatar_path = "/home/gengyang/FlagPerf/data_dir"
# not carried (no such parameter in chipperf's case): tokenizer_path = mixtral_iluvatar_path + "/flagscale-iluvatar-mixtral/data_dir/Qwen1___5-7B-Chat-GPTQ-Int8"
# not carried (no such parameter in chipperf's case): localbs = 1  #micro-batch-size
train_steps = 100  ##训练迭代次数
theoryflops = 192000000000000.0
# not carried (no such parameter in chipperf's case): megatron_path = mixtral_iluvatar_path + "/flagscale-iluvatar-mixtral"#"/workspace/Megatron-LM" # need to be aligned with DockerFile. In NGCtorch, it's /workspace/ + Megatron-LM
tensor_parallel = 2  #四机为4,非四机暂设为2
# not carried (no such parameter in chipperf's case): pipeline_parallel = 2
