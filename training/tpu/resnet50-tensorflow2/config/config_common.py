# resnet50 / TensorFlow 2 on a Cloud TPU, every slice: the published ResNet-50 on ImageNet-1k
# (the case defaults), bf16 (TPUs' matrix units take bf16), XLA by TPUStrategy.
# NOT run on a TPU by chipperf (../README.md): a starting point, not a measured optimum.
dtype = "bf16"
jit_compile = True        # recorded; on a TPU every step is XLA-compiled by TPUStrategy
