"""Run the hardware-spec benchmarks: `python3 base/run.py`.

The suite: FlagPerf's base/: GEMM FLOP/s per dtype, memory bandwidth and capacity, host-to-device
and chip-to-chip bandwidth.

Reads base/configs/host.yaml (FlagPerf's form: hosts, vendor, chip and cases) unless
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
    sys.exit(entry_main("base/run.py", __doc__, sys.argv[1:], "base",
                        host_config=str(HERE / "configs" / "host.yaml")))
