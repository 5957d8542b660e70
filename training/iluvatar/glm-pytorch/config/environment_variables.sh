# From FlagOpen/FlagPerf@1b5a0303 training/iluvatar/glm-pytorch/config/environment_variables.sh (values as FlagPerf sets them).
# not carried (shell expansion: chipperf sets each value literally): export LD_LIBRARY_PATH=/root/miniconda/lib/python3.8/site-packages/torch/lib:${LD_LIBRARY_PATH}
