# From FlagOpen/FlagPerf@1b5a0303 training/cambricon/llava1.5_13b-deepspeed-torch/config/config_MLUx1x8.py (values as FlagPerf sets them).
# ruff: noqa
# Common arguments

# 请在Flagperf目录下，创建MLU_FP16_FLOPS.py，
# 文件包含MLU硬件算力值，示例如下：
# MLU_FP16_FLOPS=1.0
# not carried (no such parameter in chipperf's case): FLOPS_DIR='../../../../'
# not carried (an import: FlagPerf's modules are not in chipperf's case): import sys
# not carried (code, not a value: chipperf reads configs as data): sys.path.append(FLOPS_DIR)
# not carried (an import: FlagPerf's modules are not in chipperf's case): from MLU_FP16_FLOPS import MLU_FP16_FLOPS
# not carried (code, not a value: chipperf reads configs as data): theoryflops = float(MLU_FP16_FLOPS)

# pretrain arguments
pretrain_per_device_train_batch_size = 32
pretrain_gradient_accumulation_steps = 1


# finetune arguments
finetune_per_device_train_batch_size = 16
finetune_gradient_accumulation_steps = 1
output_dir_finetune = "Output/checkpoints_finetune/llava-v1.5-13b"

# eval arguments
mmmu_data_path = "MMMU/MMMU"
