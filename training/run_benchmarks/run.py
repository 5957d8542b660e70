"""FlagPerf-style entry: `sudo python run_benchmarks/run.py` from training/.

Uses run_benchmarks/config/cluster_conf.py and test_conf.py beside this file
unless --cluster/--test say otherwise; everything else is `chipperf run`.
"""

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent))  # the repo root, when chipperf is not installed

from chipperf.cli import main  # noqa: E402


def _args(argv: list) -> list:
    extra = list(argv)
    if "--cluster" not in extra:
        extra += ["--cluster", str(HERE / "config" / "cluster_conf.py")]
    if "--test" not in extra:
        extra += ["--test", str(HERE / "config" / "test_conf.py")]
    debug = ["--debug"] if "--debug" in extra else []
    return debug + ["run"] + [a for a in extra if a != "--debug"]


if __name__ == "__main__":
    sys.exit(main(_args(sys.argv[1:])))
