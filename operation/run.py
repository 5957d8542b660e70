"""Run the operator benchmarks: `python3 operation/run.py`.

The suite: FlagPerf's operation/: correctness against a float64
reference, latency percentiles, TFLOP/s or GB/s per operator.

Reads operation/configs/host.yaml (FlagPerf's form: hosts, vendor, chip and cases) unless
--host-config names another, runs each case through the vendor's image on the cluster and
writes result/run<timestamp>/ under the directory you start it from.
"""

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))  # the repo root, when chipperf is not installed

from chipperf.entrypython import python_with_requirements  # noqa: E402

python_with_requirements(HERE.parent)

from chipperf.cli import entry_main  # noqa: E402

if __name__ == "__main__":
    sys.exit(entry_main("operation/run.py", __doc__, sys.argv[1:], "operation",
                        host_config=str(HERE / "configs" / "host.yaml")))
