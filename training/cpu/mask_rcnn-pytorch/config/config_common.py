# mask_rcnn / PyTorch on CPU: the CI configuration, shared by every topology.
# Data: the generated shapes in COCO 2017's layout, written by
# training/benchmarks/retinanet/pytorch/prepare_shapes.py (64x64 images, 1-3 shapes, 3 categories).
model_size = "tiny"
min_size = 64
max_size = 64
num_workers = 0
warmup_steps = 20
lr_steps = [100]
max_epochs = 12
target_map = 0.4
log_every_steps = 4
target_mask_map = 0.4
# The mask head makes the from-scratch start less stable than faster_rcnn's: at lr 0.02 and no
# clipping one run went to a nan loss at step 33. Half the rate, the gradients' norm clipped.
base_lr = 0.01
clip_grad_norm = 5.0
