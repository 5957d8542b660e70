"""FlagPerf-style entry for the base suite: `python base/run.py`.

Uses base/configs/host.yaml unless --host-config says otherwise; everything else is
`chipperf run --suite base`.
"""

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))  # the repo root, when chipperf is not installed

from chipperf.cli import main  # noqa: E402


def _args(argv: list) -> list:
    extra = [a for a in argv if a != "--debug"]
    if "--host-config" not in extra:
        extra += ["--host-config", str(HERE / "configs" / "host.yaml")]
    debug = ["--debug"] if "--debug" in argv else []
    return debug + ["run", "--suite", "base"] + extra


if __name__ == "__main__":
    sys.exit(main(_args(sys.argv[1:])))
