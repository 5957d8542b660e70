"""The parameters a vendor config (config_<chip>x<nnodes>x<nproc>.py) may set."""

from chipperf_runtime.training.hftext.hpugraphs_mutable import *  # noqa: F403 - hpu_graph_knobs
from chipperf_runtime.training.hftext.mutable import *  # noqa: F403 - shared_mutable

OWN = ["seq_len", "init_checkpoint", "from_checkpoint", "tokenizer_dir"]
mutable_params = hpu_graph_knobs + shared_mutable + OWN  # noqa: F405
