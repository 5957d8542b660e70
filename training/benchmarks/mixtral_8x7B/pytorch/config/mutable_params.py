"""The parameters a vendor config (config_<chip>x<nnodes>x<nproc>.py) may set."""

from chipperf_runtime.training.llmtrain.mutable import *  # noqa: F403 - shared_mutable

mutable_params = shared_mutable + [  # noqa: F405
    "expert_parallel", "context_parallel", "sequence_parallel", "router_aux_loss_coef",
    "save_checkpoint", "implementation"]
