"""The parameters a vendor config (config_<chip>x<nnodes>x<nproc>.py) may set.

The model shape (blocks, base_width) and the dataset-bound num_classes are not among them:
a vendor runs the published ResNet-50."""

mutable_params = [
    "image_size", "train_augment", "val_crop_ratio",
    "global_batch_size", "base_lr", "lr_reference_batch", "momentum", "weight_decay",
    "label_smoothing", "warmup_epochs", "nesterov",
    "max_epochs", "target_accuracy", "eval_every_epochs", "max_steps",
    "dtype", "collective", "cpu_threads", "seed", "log_every_steps",
]
