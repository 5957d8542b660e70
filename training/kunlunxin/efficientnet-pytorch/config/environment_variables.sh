# From FlagOpen/FlagPerf@1b5a0303 training/kunlunxin/efficientnet-pytorch/config/environment_variables.sh (values as FlagPerf sets them).
export XACC=1
export BKCL_PCIE_RING=1
export BKCL_TIMEOUT=1800
export XMLIR_D_XPU_L3_SIZE=66060288
