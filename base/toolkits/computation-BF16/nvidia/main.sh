#!/bin/bash
# chipperf nvidia toolkit for computation-BF16: cuBLASLt's BF16 GEMM on one GPU, built with nvcc
# in the nvidia base image (base/toolkits/_common/nvidia/gemm.cu).
source "$CHIPPERF_TOOLKIT_COMMON/gemm.sh" BF16
