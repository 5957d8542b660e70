"""Run the inference benchmarks (FlagPerf's entry): `python3 inference/run.py`.

Reads inference/configs/host.yaml (hosts, vendor, chip and cases) unless --host-config
names another, runs each case on one node of the cluster and writes result/run<timestamp>/
under the directory you start it from.
"""

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))  # the repo root, when chipperf is not installed

from chipperf.entrypython import python_with_requirements  # noqa: E402

python_with_requirements(HERE.parent)

from chipperf.cli import entry_main  # noqa: E402


def default_data() -> int:
    """With the default host.yaml, its CI-sized data is made first where it is missing."""
    from prepare_data import DEFAULT_ROOT, missing, prepare

    problem = prepare(DEFAULT_ROOT, missing(DEFAULT_ROOT))
    if problem:
        print(f"inference/run.py: {problem}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    if not any(a.startswith("--host-config") or a in ("-h", "--help") for a in sys.argv[1:]):
        if default_data():
            sys.exit(2)
    sys.exit(entry_main("inference/run.py", __doc__, sys.argv[1:], "inference",
                        host_config=str(HERE / "configs" / "host.yaml")))
