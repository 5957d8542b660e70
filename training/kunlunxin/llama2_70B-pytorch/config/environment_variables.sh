# From FlagOpen/FlagPerf@1b5a0303 training/kunlunxin/llama2_70B-megatron/config/environment_variables.sh (values as FlagPerf sets them).
# not carried (shell expansion: chipperf sets each value literally): export PATH=/root/miniconda/envs/python38_torch201_cuda/bin:$PATH
