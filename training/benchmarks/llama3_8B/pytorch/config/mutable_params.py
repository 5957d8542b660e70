"""The parameters a vendor config (config_<chip>x<nnodes>x<nproc>.py) may set."""

from chipperf_runtime.training.driver.compile_mutable import *  # noqa: F403 - compile_knobs
from chipperf_runtime.training.llmtrain.mutable import *  # noqa: F403 - shared_mutable

mutable_params = shared_mutable + compile_knobs + [  # noqa: F405
    "pipeline_parallel", "pipeline_schedule", "context_parallel", "sequence_parallel",
    "implementation"]
