"""The parameters a vendor config may set in llama2_70B and llama3_70B (both cases'
``config/mutable_params.py`` star-import this file); the defaults are in base70b.py."""

from chipperf_runtime.training.llmtrain.mutable import *  # noqa: F403 - shared_mutable

mutable_70b = shared_mutable + [  # noqa: F405
    "pipeline_parallel", "pipeline_schedule", "context_parallel", "sequence_parallel",
    "save_checkpoint", "implementation"]
