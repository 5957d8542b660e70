# From FlagOpen/FlagPerf@1b5a0303 training/metax/llava1.5_7b_continuetrain-flagscale/config/environment_variables.sh (values as FlagPerf sets them).
