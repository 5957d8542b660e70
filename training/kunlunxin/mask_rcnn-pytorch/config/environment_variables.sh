# From FlagOpen/FlagPerf@1b5a0303 training/kunlunxin/mask_rcnn-pytorch/config/environment_variables.sh (values as FlagPerf sets them).
# =================================================
# Export variables
# =================================================


export XACC_ENABLE=1
export BKCL_PCIE_RING=1
export XMLIR_D_XPU_L3_SIZE=66060288
export XDNN_CONV_GEMM_DTYPE="int16"
export XACC_INSTALL_RUNTIME_HOOKER=4
export XACC_ARGS="-L O0"
