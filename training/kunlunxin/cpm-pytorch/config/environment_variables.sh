# From FlagOpen/FlagPerf@1b5a0303 training/kunlunxin/cpm-pytorch/config/environment_variables.sh (values as FlagPerf sets them).
# =================================================
# Export variables
# =================================================
set -x

export XMLIR_F_XPU_ENABLED_BOOL=true
export XMLIR_TORCH_XCCL_ENABLED=true

##===----------------------------------------------------------------------===##
## R480 config
##===----------------------------------------------------------------------===##

# BKCL
# not carried (shell expansion: chipperf sets each value literally): topo_file=${WORKSPACE-"."}/topo.txt
# not carried (a shell command, not an assignment): touch topo_file
# not carried (shell expansion: chipperf sets each value literally): export XPUSIM_TOPOLOGY_FILE=$(readlink -f $topo_file)

## workaround due to ccix bug
export BKCL_PCIE_RING=1
export ALLREDUCE_ASYNC="0"
export ALLREDUCE_FUSION="0"
export BKCL_FORCE_SYNC=1

export XACC_ENABLE=1
export XMLIR_D_XPU_L3_SIZE=32505856
