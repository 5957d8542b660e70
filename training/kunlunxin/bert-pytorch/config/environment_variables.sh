# From FlagOpen/FlagPerf@1b5a0303 training/kunlunxin/bert-pytorch/config/environment_variables.sh (values as FlagPerf sets them).
# =================================================
# Export variables
# =================================================
set -x

export XMLIR_F_XPU_ENABLED_BOOL=true
export XMLIR_TORCH_XCCL_ENABLED=true

# BKCL
export BKCL_PCIE_RING=1
