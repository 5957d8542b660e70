# From FlagOpen/FlagPerf training/kunlunxin/bert-pytorch/config/environment_variables.sh at commit 572fd7d8d2401132019bd1b145df521ab324ef94 (its licence header left out).
# =================================================
# Export variables
# =================================================
set -x

export XMLIR_F_XPU_ENABLED_BOOL=true
export XMLIR_TORCH_XCCL_ENABLED=true    

# BKCL
export BKCL_PCIE_RING=1
