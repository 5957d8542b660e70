# From FlagOpen/FlagPerf@1b5a0303 training/kunlunxin/detr-pytorch/config/environment_variables.sh (values as FlagPerf sets them).
# =================================================
# Export variables
# =================================================

export XACC=1
export BKCL_PCIE_RING=1
export OMP_NUM_THREADS=1
export XMLIR_D_XPU_L3_SIZE=66060288
