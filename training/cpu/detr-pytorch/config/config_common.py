# detr / PyTorch on CPU: the CI configuration, shared by every topology.
# Data (case.yaml's ci_data): training/benchmarks/retinanet/pytorch/prepare_shapes.py OUT
# --size 32 --max-shapes 1 (256 train and 64 val 32x32 images, one shape each, 3 categories).
# The tiny DETR (one query, a stride-8 backbone, 1 + 1 layers, DETR's own init: detection/detr.py)
# trains from scratch: its backbone at the full rate, a 20x higher lr than DETR's, x 0.1 after
# epoch 12 (step 192). Box mAP 0.2 is reached at step 224 (epoch 14) in CI's case test
# (tests/cases/test_detection_pytorch.py; README: the curves of three seeds).
model_size = "tiny"
min_size = 32
max_size = 32
num_workers = 0
base_lr = 2e-3
lr_reference_batch = 16
global_batch_size = 16
global_eval_batch_size = 16
backbone_lr_factor = 1.0
lr_steps = [12]
max_epochs = 30
eval_every_epochs = 2
target_map = 0.2
log_every_steps = 16
# One torch thread per rank whatever the machine's cores: the same arithmetic, so the same
# curve, on every machine (intra-op threads change the order of float sums).
cpu_threads = 1
