#!/bin/bash
# chipperf nvidia toolkit for main_memory-bandwidth: build bandwidth.cu (a device copy
# kernel) with nvcc in the nvidia base image and run it on one GPU.
set -euo pipefail
nvcc -O3 -std=c++17 -o bandwidth bandwidth.cu
./bandwidth "${CHIPPERF_MIN_TIME_S:-1}" "${BANDWIDTH_BYTES:-1073741824}"
