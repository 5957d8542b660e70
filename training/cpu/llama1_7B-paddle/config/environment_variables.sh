# Paddle LLM cases on CPU, every config: what the container (and the host test) gets.
#
# Paddle 3.3.1's CPU wheel does its matmuls in the MKL it ships (MKL 2019.0 Update 5, as
# MKL_VERBOSE=1 prints), which on an AMD CPU takes its generic code path. This variable
# (read by MKL 2019 to 2020.0, ignored on Intel CPUs and by later MKLs) makes it take the AVX2
# path instead: a 1024x128 by 128x512 fp32 matmul on one thread of the 2-core CI machine
# (AMD EPYC) ran at 20.2 GFLOP/s with it and 9-11 without it (training/cpu/bert-paddle/README.md, "Measured").
export MKL_DEBUG_CPU_TYPE=5
