"""transformer_xl (PyTorch) on the host: one rank with the cpu CI config (a tiny
Transformer-XL carrying its memory between segments) reaches its perplexity target on the
generated text its prepare_data.py writes in FlagPerf's WikiText-103 Arrow layout. Needs
torch, numpy and pyarrow.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from caserun import Case, check_converged, init_end, perflog_events

TXL = Case("transformer_xl", "pytorch")


def test_one_rank_reaches_the_ci_target(tmp_path: Path) -> None:
    subprocess.run([sys.executable, str(TXL.dir / "prepare_data.py"), "--output", str(tmp_path)],
                   check=True, timeout=60)
    result = TXL.run_config(tmp_path)
    assert result.returncode == 0, result.stderr[-4000:]
    events = perflog_events(result.stdout)
    finished = check_converged(events)
    assert finished["metric"]["name"] == "perplexity" and finished["work_unit"] == "samples"
    init = init_end(events)
    assert init["seq_len"] == 16 and init["mem_len"] == 32 and init["vocab_size"] == 62
    assert finished["flops_per_unit"] == 3 * init["forward_flops_per_sample"] > 0
