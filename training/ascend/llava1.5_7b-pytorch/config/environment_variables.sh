# From FlagOpen/FlagPerf@1b5a0303 training/ascend/llava1.5_7b-deepspeed-torch/config/environment_variables.sh (values as FlagPerf sets them).
# When using Conda, please specify the location of your environment variable
# If you are using the system's environment, there is no need to set this variable
# not carried (a shell command, not an assignment): source /root/anaconda3/bin/activate /opt/nvme1n1/conda-envs/patch;

# Activate the environment related to Ascend
# not carried (a shell command, not an assignment): source /usr/local/Ascend/driver/bin/setenv.bash;
# not carried (a shell command, not an assignment): source /usr/local/Ascend/ascend-toolkit/set_env.sh
