#!/bin/bash
# chipperf nvidia toolkit for computation-FP32: cuBLASLt's FP32 GEMM on one GPU, built with nvcc
# in the nvidia base image (base/toolkits/_common/nvidia/gemm.cu).
source "$CHIPPERF_TOOLKIT_COMMON/gemm.sh" FP32
