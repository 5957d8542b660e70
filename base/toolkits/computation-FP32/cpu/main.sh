#!/bin/bash
# chipperf cpu toolkit for computation-FP32: build sgemm.c with the image's C compiler and
# OpenMP, then run it for CHIPPERF_MIN_TIME_S seconds (the vendor config's min_time_s).
set -euo pipefail
cc=$(command -v gcc || command -v cc)
"$cc" -O3 -march=native -fopenmp -o sgemm sgemm.c -lm
./sgemm "${CHIPPERF_MIN_TIME_S:-1}" "${SGEMM_N:-1024}"
