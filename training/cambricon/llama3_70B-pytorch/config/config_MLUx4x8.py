# From FlagOpen/FlagPerf@1b5a0303 training/cambricon/llama3_70B-megatron/config/config_MLUx4x8.py (values as FlagPerf sets them).
# ruff: noqa
# not carried (no such parameter in chipperf's case): tokenizer_path = "llama3_70b_hf"
# not carried (no such parameter in chipperf's case): localbs = 1
# not carried (no such parameter in chipperf's case): train_steps = 300
# 请在Flagperf目录下，创建MLU_FP16_FLOPS.py，
# 文件包含MLU硬件算力值，示例如下：
# MLU_FP16_FLOPS=1.0
# not carried (no such parameter in chipperf's case): FLOPS_DIR='../../../../'
# not carried (an import: FlagPerf's modules are not in chipperf's case): import sys
# not carried (code, not a value: chipperf reads configs as data): sys.path.append(FLOPS_DIR)
# not carried (an import: FlagPerf's modules are not in chipperf's case): from MLU_FP16_FLOPS import MLU_FP16_FLOPS
# not carried (code, not a value: chipperf reads configs as data): theoryflops = float(MLU_FP16_FLOPS)
# not carried (no such parameter in chipperf's case): megatron_path = "/workspace/Megatron-LM" # need to be aligned with DockerFile. In NGCtorch, it's /workspace/ + Megatron-LM
tensor_parallel = 8
pipeline_parallel = 2
