# llava1.5_13b / PyTorch on CPU, every topology: llava1.5_7b's CI size and settings ("tiny":
# 2-layer vision tower on 28 px pictures, 2 x 128 decoder, byte-level ids; the 13b preset does
# not fit a CI machine) in both stages on prepare_data.py's generated pictures and
# conversations, fp32, one micro-batch of 16 per step. See ../README.md.
model_size = "tiny"
prompt_version = "plain"      # the caption alone (the v1 chat prompt is 170 positions of system
                              # prompt per sample: 5 x the compute)
seq_len = 64
activation_checkpointing = False
reshard_after_forward = False
eval_samples = 32
global_batch_size = 16
learning_rate = 3e-3
min_lr_ratio = 0.1
warmup_steps = 5
max_steps = 200
eval_every_steps = 10
log_every_steps = 5
dtype = "fp32"
cpu_threads = 1               # CI machines are shared: one torch thread per rank
# stage "both" (the default): the pretrain stage first, the projector alone under the frozen
# random decoder, which cannot learn the captions: its tiny target (5.21, README) only says the
# projector's gradient reaches it; then finetune with the settings above from that projector
pretrain_recipe = {"learning_rate": 1e-2, "max_steps": 60}
