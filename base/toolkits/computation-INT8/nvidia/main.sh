#!/bin/bash
# chipperf nvidia toolkit for computation-INT8: cuBLASLt's INT8 GEMM on one GPU, built with nvcc
# in the nvidia base image (base/toolkits/_common/nvidia/gemm.cu).
source "$CHIPPERF_TOOLKIT_COMMON/gemm.sh" INT8
