"""Run the training benchmarks (FlagPerf's entry): `python3 run_benchmarks/run.py` from training/.

Reads run_benchmarks/config/cluster_conf.py (which hosts) and test_conf.py (which vendor
and cases) beside this file, unless --cluster/--test name others, runs every case on the
cluster and writes result/run<timestamp>/ under the directory you start it from.
"""

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
sys.path.insert(0, str(REPO))  # the repo root, when chipperf is not installed

from chipperf.entrypython import python_with_requirements  # noqa: E402

python_with_requirements(REPO)

from chipperf.cli import entry_main  # noqa: E402

if __name__ == "__main__":
    sys.exit(entry_main("run_benchmarks/run.py", __doc__, sys.argv[1:], "training",
                        cluster=str(HERE / "config" / "cluster_conf.py"),
                        test=str(HERE / "config" / "test_conf.py")))
