# From FlagOpen/FlagPerf@1e05cb65 (pull request 375) training/dcu/detr-pytorch/config/environment_variables.sh (values as FlagPerf sets them).
# =================================================
# Export variables
# =================================================

export HSA_FORCE_FINE_GRAIN_PCIE=1
export USE_MIOPEN_BATCHNORM=1
export MIOPEN_FIND_MODE=4
