# From FlagOpen/FlagPerf@1b5a0303 training/kunlunxin/transformer-pytorch/config/environment_variables.sh (values as FlagPerf sets them).
export XACC=1
export XACC_ARGS="-L O0 -Lamp"
