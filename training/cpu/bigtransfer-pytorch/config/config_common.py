# bigtransfer / PyTorch on CPU: the CI configuration, shared by every topology.
# Data: scikit-learn's digits written by training/benchmarks/resnet50/pytorch/prepare_digits.py
# (8x8 grayscale, upscaled to 32x32); target top-1 0.85 on its 359-image val split.
model_size = "tiny"
image_size = 32
train_augment = "resize"
val_crop_ratio = 1.0
num_workers = 0
optimizer = "adamw"
weight_decay = 0.01
global_batch_size = 32
lr_reference_batch = 32
warmup_epochs = 0.3
max_epochs = 8
target_accuracy = 0.85
log_every_steps = 5
