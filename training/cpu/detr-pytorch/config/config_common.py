# detr / PyTorch on CPU: the CI configuration, shared by every topology.
# Data: the generated shapes in COCO 2017's layout, written by
# training/benchmarks/retinanet/pytorch/prepare_shapes.py OUT --size 32 --max-shapes 1
# (32x32 images, one shape each, 3 categories: case.yaml's ci_data). The tiny DETR (one query,
# a stride-8 backbone, 1 + 1 layers) trains from scratch: its backbone at the full rate, a 20x
# higher lr than DETR's, no lr drop. It reached its target in 880-1,200 steps in three of four
# runs (not with 2 threads: README), more than CI's case test can afford: that test trains a few
# steps and scores them.
model_size = "tiny"
min_size = 32
max_size = 32
num_workers = 0
base_lr = 2e-3
lr_reference_batch = 16
global_batch_size = 16
global_eval_batch_size = 16
backbone_lr_factor = 1.0
lr_steps = [1000]
max_epochs = 120
eval_every_epochs = 5
target_map = 0.2
log_every_steps = 20
