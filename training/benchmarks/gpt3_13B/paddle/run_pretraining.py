"""gpt3_13B / Paddle training case (FlagPerf's gpt3_13B paddle case): causal-LM pretraining with
FlagPerf's tensor / pipeline / sharding degrees, on Paddle's collectives (gloo on CPU, NCCL on
GPUs).

    python3 -m paddle.distributed.launch --nproc_per_node N -- run_pretraining.py --data_dir D \
        --extern_config_dir DIR --extern_config_file config_<chip>x<nnodes>x<nproc>.py \
        --output_dir OUT [--set name=value ...]

The code is chipperf_runtime/training/paddlellm (shared by the four Paddle LLM cases); see
README.md for the model, the data layout and the measured CI runs.
"""

from pathlib import Path

from chipperf_runtime.training.driver import run_case
from chipperf_runtime.training.paddlellm.case import main

if __name__ == "__main__":
    run_case(lambda: main("gpt3_13B", Path(__file__).resolve().parent))
