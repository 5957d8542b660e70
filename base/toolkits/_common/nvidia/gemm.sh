# chipperf nvidia toolkits: build gemm.cu (this folder) with nvcc and run it for one dtype.
# Sourced by base/toolkits/computation-<DTYPE>/nvidia/main.sh as: source "$here/gemm.sh" DTYPE
set -euo pipefail
nvcc -O3 -std=c++17 -o gemm "$CHIPPERF_TOOLKIT_COMMON/gemm.cu" -lcublasLt
./gemm "$1" "${CHIPPERF_MIN_TIME_S:-1}" "${GEMM_SIZE:-8192}"
