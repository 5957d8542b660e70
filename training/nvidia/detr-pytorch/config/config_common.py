# detr / PyTorch on NVIDIA GPUs: what every topology shares. COCO 2017 at DETR's evaluation
# size (short side 800, long side at most 1333), the full-size model (model_size "resnet50"),
# fp32 as FlagPerf's detr runs it; the recipe and target are config/_base.py's.
# The per-topology files set the global batch (8 images per GPU, as FlagPerf's A100 configs)
# and keep DETR's lr 1e-4 unscaled at every batch, as FlagPerf does (lr_reference_batch =
# global_batch_size). Not run by chipperf's CI (no GPU there).
num_workers = 8
