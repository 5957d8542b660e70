# From FlagOpen/FlagPerf@9c646060 (branch mthreads_llama2) training/mthreads/llama2_7b-deepspeed/config/environment_variables.sh (values as FlagPerf sets them).
# not carried (chipperf sets the visible devices per node from the case key's nproc): export MUSA_VISIBLE_DEVICES='0,1,2,3,4,5,6,7'
export DS_ACCELERATOR=musa
export MUSA_KERNEL_TIMEOUT=1800000
export NCCL_PROTOS=2
