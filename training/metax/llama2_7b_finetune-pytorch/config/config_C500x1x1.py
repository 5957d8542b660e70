# From FlagOpen/FlagPerf@1b5a0303 training/metax/llama2_7b_finetune-pytorch/config/config_C500x1x1.py (values as FlagPerf sets them).
# ruff: noqa
# not carried (no such parameter in chipperf's case): batch_size_training: int = 4
# not carried (no such parameter in chipperf's case): num_epochs: int = 3
# not carried (no such parameter in chipperf's case): model_name: str = "llama2_7b_hf"
# not carried (no such parameter in chipperf's case): mmlu_dir = "mmlu_dataset"
# not carried (no such parameter in chipperf's case): dataset_dir = "samsum_dataset"
# not carried (no such parameter in chipperf's case): output_dir: str = "PEFT_model"
# not carried (no such parameter in chipperf's case): weight_dir = model_name
# not carried (no such parameter in chipperf's case): nproc = 1
# not carried (no such parameter in chipperf's case): nnodes = 1
# not carried (no such parameter in chipperf's case): use_fp16 = True
# not carried (no such parameter in chipperf's case): lr=1e-6
