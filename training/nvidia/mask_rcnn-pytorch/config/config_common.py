# mask_rcnn / PyTorch on NVIDIA GPUs: what every topology shares. COCO 2017 at torchvision's sizes
# (short side 800, long side at most 1333), the full-size model (model_size "resnet50_fpn"),
# fp32 as FlagPerf's mask_rcnn runs it; the recipe and targets (box and mask mAP) are config/_base.py's.
# The per-topology files set the global batch (16 images per GPU, as FlagPerf's A100 configs;
# the lr scales with it). Not run by chipperf's CI (no GPU there).
num_workers = 8
global_eval_batch_size = 64
