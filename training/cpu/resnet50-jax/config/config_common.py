# resnet50 / JAX on CPU, every topology: the CI configuration.
# Model: the "tiny" preset (same code as ResNet-50, one block per stage, width 16).
# Data: scikit-learn's digits written by training/benchmarks/resnet50/pytorch/prepare_digits.py
# (8x8 grayscale, resized to 32x32); target top-1 0.90 on its 359-image val split (the
# resnet50/pytorch CI target). Measured runs and commands: ../README.md.
model_size = "tiny"
image_size = 32
train_augment = "resize"
val_crop_ratio = 1.0
global_batch_size = 32
lr_reference_batch = 32
label_smoothing = 0.0
warmup_epochs = 1
max_epochs = 10
log_every_steps = 5
