# resnet50 / JAX on NVIDIA A100, H100 and H200 GPUs, every topology: ResNet-50 v1.5 on
# ImageNet-1k at 224x224 (the case defaults), bf16 compute with float32 parameters, 256 images
# per GPU (the per-topology files set the global batch); lr scales linearly from 0.1 at 256.
# NOT run by chipperf (its machines have no GPU): see ../README.md.
dtype = "bf16"
log_every_steps = 50
