# From FlagOpen/FlagPerf@1b5a0303 training/dcu/glm-pytorch/config/environment_variables.sh (values as FlagPerf sets them).
# =================================================
# Export variables
# =================================================

export HSA_FORCE_FINE_GRAIN_PCIE=1
export GPU_FLUSH_ON_EXECUTION=1
