# From FlagOpen/FlagPerf@1b5a0303 training/kunlunxin/t5_small-pytorch/config/environment_variables.sh (values as FlagPerf sets them).
export XACC_ENABLE=1
export BKCL_PCIE_RING=1
export XMLIR_D_XPU_L3_SIZE=66060288
