# From FlagOpen/FlagPerf@1b5a0303 training/ascend/llava1.5_7b-deepspeed-torch/config/config_Atlas800TA2x1x8.py (values as FlagPerf sets them).
# ruff: noqa
# ascend npu flashattention
# not carried (an import: FlagPerf's modules are not in chipperf's case): import transformers
# not carried (an import: FlagPerf's modules are not in chipperf's case): import os

# not carried (code, not a value: chipperf reads configs as data): cwd = os.getcwd()

# not carried (code, not a value: chipperf reads configs as data): os.chdir(os.path.dirname(__file__))

# not carried (code, not a value: chipperf reads configs as data): transformers_path = os.path.dirname(transformers.__file__)

# not carried (code, not a value: chipperf reads configs as data): import_utils_path = os.path.join(
# not carried (code, not a value: chipperf reads configs as data):     transformers_path, 
# not carried (code, not a value: chipperf reads configs as data):     "utils/import_utils.py"
# not carried (code, not a value: chipperf reads configs as data): )
# not carried (code, not a value: chipperf reads configs as data): modeling_llama_path = os.path.join(
# not carried (code, not a value: chipperf reads configs as data):     transformers_path, 
# not carried (code, not a value: chipperf reads configs as data):     "models/llama/modeling_llama.py"
# not carried (code, not a value: chipperf reads configs as data): )

# not carried (uses a value not carried above): import_utils_patch_bash = "patch --silent --forward " + \
# not carried (uses a value not carried above): 	import_utils_path + \
# not carried (uses a value not carried above): 	" import_utils.patch -o import_utils.py;"
# not carried (uses a value not carried above): modeling_llama_patch_bash = "patch --silent --forward " + \
# not carried (uses a value not carried above): 	modeling_llama_path + \
# not carried (uses a value not carried above): 	" modeling_llama.patch -o modeling_llama.py;"
    
# not carried (code, not a value: chipperf reads configs as data): if os.system(import_utils_patch_bash) == 0:
# not carried (code, not a value: chipperf reads configs as data):     os.system("mv import_utils.py " + import_utils_path + ";")
# not carried (code, not a value: chipperf reads configs as data): if os.system(modeling_llama_patch_bash) == 0:
# not carried (code, not a value: chipperf reads configs as data):     os.system("mv modeling_llama.py " + modeling_llama_path +";")
    
# useing torch_npu
# not carried (code, not a value: chipperf reads configs as data): os.system("cp ./train_mem.py ../../../benchmarks/llava1.5_7b/deepspeed-torch/train/")

# not carried (code, not a value: chipperf reads configs as data): os.chdir(cwd)


# Common arguments
theoryflops = 304277000000000.0

# pretrain arguments
pretrain_per_device_train_batch_size = 32
pretrain_gradient_accumulation_steps = 1


# finetune arguments
finetune_per_device_train_batch_size = 16
finetune_gradient_accumulation_steps = 1
output_dir_finetune = "Output/checkpoints_finetune/llava-v1.5-7b"

# eval arguments
mmmu_data_path = "MMMU/MMMU"

# not carried (code, not a value: chipperf reads configs as data): os.chdir(cwd)
