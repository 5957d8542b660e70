#!/bin/bash
# chipperf nvidia toolkit for computation-TF32: cuBLASLt's TF32 GEMM on one GPU, built with nvcc
# in the nvidia base image (base/toolkits/_common/nvidia/gemm.cu).
source "$CHIPPERF_TOOLKIT_COMMON/gemm.sh" TF32
