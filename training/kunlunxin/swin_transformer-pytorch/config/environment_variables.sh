# From FlagOpen/FlagPerf@1b5a0303 training/kunlunxin/swin_transformer-pytorch/config/environment_variables.sh (values as FlagPerf sets them).
# =================================================
# Export variables
# =================================================

export XACC=1
export BKCL_PCIE_RING=1
export XACC_ARGS="-L amp"
export XMLIR_D_XPU_L3_SIZE=66060288
