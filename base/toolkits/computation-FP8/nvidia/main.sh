#!/bin/bash
# chipperf nvidia toolkit for computation-FP8: cuBLASLt's FP8 GEMM on one GPU, built with nvcc
# in the nvidia base image (base/toolkits/_common/nvidia/gemm.cu).
source "$CHIPPERF_TOOLKIT_COMMON/gemm.sh" FP8
