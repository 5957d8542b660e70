# mask_rcnn / PyTorch on CPU: the CI configuration, shared by every topology.
# Data (case.yaml's ci_data): training/benchmarks/retinanet/pytorch/prepare_shapes.py OUT
# --size 64 --max-shapes 1 --train 64 --val 32 (64x64 images, one shape each with its outline,
# 3 categories). Box and mask mAP 0.3 both are reached at step 32 (epoch 4) in CI's case test
# (tests/cases/test_detection_pytorch.py; README: the curves of three seeds).
model_size = "tiny"
min_size = 64
max_size = 64
num_workers = 0
global_batch_size = 8
global_eval_batch_size = 8
# lr 0.02 (the base's) at batch 8 (twice torchvision's rate per image), 5 warmup steps, x 0.1
# after epoch 3 (step 24). The mask head makes the from-scratch start less stable than faster_rcnn's: at lr
# 0.02 and no clipping one run went to a nan loss at step 33; the gradients' norm is clipped.
lr_reference_batch = 8
warmup_steps = 5
lr_steps = [3]
clip_grad_norm = 5.0
max_epochs = 12              # box and mask mAP scored every epoch (the base's eval_every_epochs)
target_map = 0.3
target_mask_map = 0.3
log_every_steps = 8
# One torch thread per rank whatever the machine's cores: the same arithmetic, so the same
# curve, on every machine (intra-op threads change the order of float sums).
cpu_threads = 1
