# From FlagOpen/FlagPerf@1b5a0303 training/nvidia/llama1_7B-paddle/config/config_TP2PP4SH1SP1A10040Gx1x8.py (values as FlagPerf sets them).
# ruff: noqa
# The chip name is the layout (TP, PP, sharding stage SH, sharding degree SP) then the chip
# (A100 40 or 80 GB); `chipperf plan` checks the layout against these degrees and lists the
# names the case does not read (chipperf/config/flagperf_knobs.py).
model_name_or_path = 'facebook/llama-7b'
tokenizer_name_or_path = 'facebook/llama-7b'
continue_training = 0
split = '998,1,1'
max_seq_length = 2048
dataloader_num_workers = 1
max_steps = 100
save_steps = 10000
eval_steps = 10000
learning_rate = 0.0003
min_learning_rate = 3e-05
warmup_steps = 2000
weight_decay = 0.1
lr_scheduler_type = 'cosine'
adam_beta1 = 0.9
adam_beta2 = 0.95
adam_epsilon = 1e-06
max_grad_norm = 1.0
target_loss = 1.0
target_ppl = 0.6
logging_steps = 1
log_freq = 1
seed = 42
per_device_train_batch_size = 2
per_device_eval_batch_size = 2048
tensor_parallel_degree = 2
pipeline_parallel_degree = 4
virtual_pp_degree = 1
sharding_parallel_degree = 1
gradient_accumulation_steps = 1024
use_flash_attention = 1
fuse_attention_qkv = 0
use_fused_rms_norm = 1
fp16 = True
fp16_opt_level = 'O2'
scale_loss = 1024
sharding = 'stage1'
recompute = True
recompute_granularity = 'full'
