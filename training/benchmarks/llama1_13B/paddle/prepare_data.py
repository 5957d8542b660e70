"""Write this case's offline CI corpus in FlagPerf's PaddleNLP layout:

    python3 prepare_data.py --output DIR [--source PATH ...]

(chipperf_runtime/training/paddlellm/prepare.py; the real data is FlagPerf's download, see
README.md)."""

import sys
from pathlib import Path

REPO = str(Path(__file__).resolve().parents[4])
if REPO not in sys.path:
    sys.path.insert(1, REPO)  # chipperf_runtime (run as a script on the host, not launched)
from chipperf_runtime.training.paddlellm.prepare import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:], "llama1_13B"))
