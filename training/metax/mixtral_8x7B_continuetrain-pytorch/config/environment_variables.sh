# From FlagOpen/FlagPerf@1b5a0303 training/metax/mixtral_8x7B_continuetrain-flagscale/config/environment_variables.sh (values as FlagPerf sets them).
