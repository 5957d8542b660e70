"""The parameters a vendor config (config_<chip>x<nnodes>x<nproc>.py) may set."""

from chipperf_runtime.training.hftext.hpugraphs_mutable import *  # noqa: F403 - hpu_graph_knobs
from chipperf_runtime.training.hftext.mutable import *  # noqa: F403 - shared_mutable

mutable_params = hpu_graph_knobs + shared_mutable + ["train_data", "eval_data", "init_checkpoint",  # noqa: F405
                                   "from_checkpoint"]
