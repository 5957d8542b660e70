"""glm (PyTorch) on the host: one rank with the cpu CI config (a tiny GLM) reaches its
accuracy target on the generated cloze samples its prepare_data.py writes in FlagPerf's ReCoRD
HDF5 layout. Needs torch, numpy, scipy and h5py.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from caserun import Case, check_converged, init_end, perflog_events

GLM = Case("glm", "pytorch")


def test_one_rank_reaches_the_ci_target(tmp_path: Path) -> None:
    subprocess.run([sys.executable, str(GLM.dir / "prepare_data.py"), "--output", str(tmp_path)],
                   check=True, timeout=60)
    result = GLM.run_config(tmp_path)
    assert result.returncode == 0, result.stderr[-4000:]
    events = perflog_events(result.stdout)
    finished = check_converged(events)
    assert finished["metric"]["name"] == "accuracy" and finished["work_unit"] == "samples"
    init = init_end(events)
    width, choices = init["seq_len"]
    assert init["weights"] == "random" and width == 32 and 3 < choices < 5
    assert finished["flops_per_unit"] == 3 * init["forward_flops_per_sequence"] * choices > 0
