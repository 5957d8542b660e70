# aquila2_34B / PyTorch on 2 nodes x 8 NVIDIA A100s: FlagPerf's in-container layout
# (FlagOpen/FlagPerf@1b5a0303, training/nvidia/aquila2_34B_container-in_container/config.py
# and training/benchmarks/aquila2_34B_container/in_container/config.py, the case's layout):
# TENSOR_PARALLEL 4 x PIPELINE_PARALLEL 4 = 16 GPUs, no data parallelism (GLOBAL_BATCHSIZE 32
# = micro batch 1 x 32 accumulation steps x 16 / 4 / 4), SEQLENGTH 4096: _base.py's
# defaults. FlagPerf's vendor file sets no model knob; what it sets, and where it goes here:
#   flops_16bit = "312000000000000": the A100's dense BF16/FP16 tensor-core peak, which
#     chipperf's A100 spec sheet holds (MFU divides by the sheet's figure for the run's dtype)
#   SSH_PORT = "60022", net_cmd (CUDA_DEVICE_MAX_CONNECTIONS=1, NCCL_SOCKET_IFNAME=enp,
#     NCCL_IB_DISABLE=0, NCCL_IB_CUDA_SUPPORT=1, NCCL_IB_GID_INDEX=0, NCCL_IB_HCA=mlx5_2,mlx5_5,
#     NCCL_DEBUG=debug), env_cmd (LD_LIBRARY_PATH of NGC pytorch:23.09): the network and paths of
#     FlagPerf's own cluster and image, not carried (a wrong NCCL_IB_HCA stops NCCL elsewhere);
#     set a site's NCCL variables in this folder's environment_variables.sh
#     (chipperf/config/adaptation.py) and its SSH port in cluster_conf's SSH_PORT
from config_common import *  # noqa: F403 - the settings every topology shares
