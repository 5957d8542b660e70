# From FlagOpen/FlagPerf@1b5a0303 training/metax/detr-pytorch/config/environment_variables.sh (values as FlagPerf sets them).
# =================================================
# Export variables
# =================================================

export METAX_USE_TF32=1
