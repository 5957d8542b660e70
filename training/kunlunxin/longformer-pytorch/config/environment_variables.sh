# From FlagOpen/FlagPerf@1b5a0303 training/kunlunxin/longformer-pytorch/config/environment_variables.sh (values as FlagPerf sets them).
export XACC_ENABLE=1
export BKCL_PCIE_RING=1
export XMLIR_D_FORCE_FALLBACK_STR="aten::index_add_"
export XMLIR_XPU_EAGER_LAUNCH_SYNC_MODE=true
