# From FlagOpen/FlagPerf@1b5a0303 training/kunlunxin/bigtransfer-pytorch/config/environment_variables.sh (values as FlagPerf sets them).
export BKCL_PCIE_RING=1
