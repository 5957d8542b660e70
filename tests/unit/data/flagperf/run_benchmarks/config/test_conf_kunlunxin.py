# From FlagOpen/FlagPerf training/run_benchmarks/config/test_conf.py at commit 1b5a030398ab719e406f77877eb34c9599b17fd2:
# the kunlunxin ACCE_CONTAINER_OPT it documents, written with '+' and line continuations,
# and one of its kunlunxin case keys.
VENDOR = "kunlunxin"
ACCE_CONTAINER_OPT = " --device=/dev/xpu0 --device=/dev/xpu1 --device=/dev/xpu2" + \
                     " --device=/dev/xpu3 --device=/dev/xpu4 --device=/dev/xpu5" + \
                     " --device=/dev/xpu6 --device=/dev/xpu7 --device=/dev/xpuctrl"
ACCE_VISIBLE_DEVICE_ENV_NAME = "XPU_VISIBLE_DEVICES"
FLAGPERF_PATH = "/home/FlagPerf/training"
FLAGPERF_LOG_PATH = FLAGPERF_PATH + "/result/"
CASES = {
    "resnet50:pytorch:R300:1:8:1": "/raid/dataset/ImageNet_1k_2012/",
}
