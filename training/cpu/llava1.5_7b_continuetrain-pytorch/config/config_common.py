# llava1.5_7b_continuetrain / PyTorch on CPU, every topology: the CI size ("tiny": 2-layer vision
# tower on 28 px pictures, 2 x 128 decoder, byte-level ids) continued from the checkpoint under
# the data dir (llava1.5_7b's tiny CI config with --set stage=finetune --set
# save_checkpoint=<data dir>/<checkpoint>), its projector trained on prepare_data.py's pretrain
# captions with the plain prompt (the tower and the decoder frozen), seq 64, fp32, 16 samples
# per step. The per-topology files set the layout. See ../README.md.
model_size = "tiny"
seq_len = 64
activation_checkpointing = False
reshard_after_forward = False
eval_samples = 32
global_batch_size = 16
micro_batch_size = 16
learning_rate = 3e-3
min_lr_ratio = 0.1
warmup_steps = 2
max_steps = 60
eval_every_steps = 5
dtype = "fp32"
cpu_threads = 1               # CI machines are shared: one torch thread per rank
