# From FlagOpen/FlagPerf@1b5a0303 training/mthreads/retinanet-pytorch/config/environment_variables.sh (values as FlagPerf sets them).
# =================================================
# Export variables
# =================================================


#export OMP_NUM_THREADS=1
export MUSA_KERNEL_TIMEOUT=3600000
