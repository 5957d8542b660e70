# resnet50 / PyTorch on CPU, every topology: the CI configuration.
# Data: scikit-learn's digits written by training/benchmarks/resnet50/pytorch/prepare_digits.py
# (8x8 grayscale, upscaled to 32x32); target top-1 0.90 on its 359-image val split.
# Measured runs and commands: ../README.md.
image_size = 32
train_augment = "resize"
val_crop_ratio = 1.0
num_workers = 0
global_batch_size = 64
base_lr = 0.04
lr_reference_batch = 64
warmup_epochs = 0.3
label_smoothing = 0.0
bn_momentum = 0.3
max_epochs = 4
target_accuracy = 0.90
log_every_steps = 5
