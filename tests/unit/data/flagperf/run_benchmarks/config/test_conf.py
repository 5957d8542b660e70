# From FlagOpen/FlagPerf training/run_benchmarks/config/test_conf.py at commit 1b5a030398ab719e406f77877eb34c9599b17fd2
# (its settings as written there; its prose comments dropped, two of its commented-out case keys enabled).
VENDOR = "nvidia"
ACCE_CONTAINER_OPT = " --gpus all"
ACCE_VISIBLE_DEVICE_ENV_NAME = "CUDA_VISIBLE_DEVICES"
PIP_SOURCE = "https://pypi.tuna.tsinghua.edu.cn/simple"
FLAGPERF_PATH = "/home/FlagPerf/training"
FLAGPERF_LOG_PATH = FLAGPERF_PATH + "/result/"
FLAGPERF_LOG_LEVEL = 'debug'
SHM_SIZE = "32G"
CLEAR_CACHES = True
'''
# Users must use {
    "model:framework:hardwareID:nnodes:nproc:repeat": "dataset path"}
'''
CASES = {
    "resnet50:pytorch_1.8:A100:1:8:1": "/raid/dataset/ImageNet_1k_2012/",
    "llama2_7b:deepspeed:A100:1:8:1": "/raid/dataset/llama2_7b_pretrain",
}
