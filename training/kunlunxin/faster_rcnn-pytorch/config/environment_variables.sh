# From FlagOpen/FlagPerf@1b5a0303 training/kunlunxin/faster_rcnn-pytorch/config/environment_variables.sh (values as FlagPerf sets them).
# =================================================
# Export variables
# =================================================


export XACC_ENABLE=1
export XACC_ARGS="-L O0"
export BKCL_PCIE_RING=1
