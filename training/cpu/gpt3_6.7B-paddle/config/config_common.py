"""cpu CI preset of the Paddle LLM cases: the tiny model on the offline CI corpus
(prepare_data.py), data parallel over the ranks (README.md)."""

model_size = "tiny"
max_seq_length = 64
split = "95,5,0"
eval_samples = 32
per_device_train_batch_size = 16   # one node x 1 process; config_xeonx1x2.py halves it
learning_rate = 1e-2
min_learning_rate = 1e-3
warmup_steps = 5
max_steps = 300   # a cap: runs stop at the target (gpt3 tensor parallel: step 60 on the
                  # development machine's corpus, 120 on a fresh Debian 12's; README.md)
eval_steps = 10
weight_decay = 0.01
