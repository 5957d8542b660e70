"""cpm (PyTorch) on the host: one rank with the cpu CI config (the tiny CPM-shaped GPT-2)
reaches its next-token accuracy target on the generated token chain its prepare_data.py
writes. Needs torch, transformers and numpy.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from caserun import Case, check_converged, init_end, perflog_events

CPM = Case("cpm", "pytorch")


def test_one_rank_reaches_the_ci_target(tmp_path: Path) -> None:
    subprocess.run([sys.executable, str(CPM.dir / "prepare_data.py"), "--output", str(tmp_path)],
                   check=True, timeout=60)
    result = CPM.run_config(tmp_path)
    assert result.returncode == 0, result.stderr[-4000:]
    events = perflog_events(result.stdout)
    finished = check_converged(events)
    assert finished["metric"]["name"] == "lm_accuracy" and finished["work_unit"] == "tokens"
    init = init_end(events)
    assert init["weights"] == "random" and init["seq_len"] == 32
    assert init["architecture"]["n_layer"] == 2
