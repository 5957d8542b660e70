# resnet50 / PyTorch through torch_xla (framework pytorch_xla_2.9) on a Cloud TPU, every slice:
# the published ResNet-50 v1.5 on ImageNet-1k (the case defaults), bf16 autocast on the XLA
# device (TPUs' matrix units take bf16), one XLA graph per step (torch_xla.sync()).
# NOT run on a TPU by chipperf (../README.md): a starting point, not a measured optimum.
dtype = "bf16"
num_workers = 8           # host-side decoding feeds the chip; no pinned memory for XLA copies
