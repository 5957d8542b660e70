"""The parameters a vendor config (config_<chip>x<nnodes>x<nproc>.py) may set."""

from chipperf_runtime.training.hftext.hpugraphs_mutable import *  # noqa: F403 - hpu_graph_knobs
from chipperf_runtime.training.hftext.mutable import *  # noqa: F403 - shared_mutable

mutable_params = hpu_graph_knobs + shared_mutable + [  # noqa: F405
    "datafilename", "valdatafilename", "weight_dir", "from_checkpoint", "seq_len", "mask_ratio",
    "mask_token_id",
]
