# From FlagOpen/FlagPerf@1b5a0303 training/cambricon/baichuan2_13b-deepspeed/config/config_MLUx2x8.py (values as FlagPerf sets them).
# ruff: noqa
# not carried (no such parameter in chipperf's case): seqlength = 2048
# not carried (no such parameter in chipperf's case): batchsize = 1
datafilename = "openwebtext_baichuan2_100M.npy"
# 请在Flagperf目录下，创建MLU_FP16_FLOPS.py，
# 文件包含MLU硬件算力值，示例如下：
# MLU_FP16_FLOPS=1.0
# not carried (no such parameter in chipperf's case): FLOPS_DIR='../../../../'
# not carried (an import: FlagPerf's modules are not in chipperf's case): import sys
# not carried (code, not a value: chipperf reads configs as data): sys.path.append(FLOPS_DIR)
# not carried (an import: FlagPerf's modules are not in chipperf's case): from MLU_FP16_FLOPS import MLU_FP16_FLOPS
# not carried (code, not a value: chipperf reads configs as data): theoryflops = float(MLU_FP16_FLOPS)
# not carried (no such parameter in chipperf's case): epochs = 1
