# resnet50 / JAX on a Cloud TPU, every slice: the published ResNet-50 v1.5 on ImageNet-1k (the
# case defaults), bf16 compute (TPUs' matrix units take bf16), one jit-compiled XLA step.
# NOT run on a TPU by chipperf (../README.md): a starting point, not a measured optimum.
dtype = "bf16"
