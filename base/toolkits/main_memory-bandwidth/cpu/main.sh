#!/bin/bash
# chipperf cpu toolkit for main_memory-bandwidth: build triad.c (STREAM's triad) with the
# image's C compiler and OpenMP, then run it for CHIPPERF_MIN_TIME_S seconds.
set -euo pipefail
cc=$(command -v gcc || command -v cc)
"$cc" -O3 -march=native -fopenmp -o triad triad.c -lm
./triad "${CHIPPERF_MIN_TIME_S:-1}" "${TRIAD_ELEMENTS:-16777216}"
