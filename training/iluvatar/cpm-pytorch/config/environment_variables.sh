# From FlagOpen/FlagPerf@1b5a0303 training/iluvatar/cpm-pytorch/config/environment_variables.sh (values as FlagPerf sets them).
