"""The text cases read from FlagPerf's own data layouts (bert_hf, longformer, transformer) on
the host: one rank with the cpu CI config reaches its target on the generated data its
prepare_data.py writes in that layout (the readers' refusals: tests/runtime/test_flagperf_mlm.py,
tests/runtime/test_translation_data.py). Needs torch, transformers and numpy.
"""

from __future__ import annotations

import functools
import subprocess
import sys
from pathlib import Path
from typing import Callable

import pytest
from caserun import Case, check_converged, init_end, perflog_events

CASES = {name: Case(name, "pytorch") for name in ("bert_hf", "longformer", "transformer")}
# case -> (metric, the CI data's row length; None: pairs of varying length)
EXPECTED = {"bert_hf": ("mlm_accuracy", 64), "longformer": ("mlm_accuracy", 32),
            "transformer": ("bleu", None)}


@pytest.fixture(scope="module")
def prepared(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str], Path]:
    """The CI data folder of a case, made by its prepare_data.py on first use."""
    @functools.cache
    def folder(name: str) -> Path:
        out = tmp_path_factory.mktemp(f"{name}_ci")
        subprocess.run([sys.executable, str(CASES[name].dir / "prepare_data.py"), "--output",
                        str(out)], check=True, timeout=120)
        return out
    return folder


@pytest.mark.parametrize("name", sorted(CASES))
def test_one_rank_reaches_the_ci_target(name: str, prepared: Callable[[str], Path]) -> None:
    result = CASES[name].run_config(prepared(name))
    assert result.returncode == 0, result.stderr[-4000:]
    events = perflog_events(result.stdout)
    finished = check_converged(events)
    metric, seq_len = EXPECTED[name]
    assert finished["metric"]["name"] == metric and finished["work_unit"] == "samples"
    init = init_end(events)
    assert init["weights"] == "random" and seq_len in (None, init["seq_len"])
    assert finished["flops_per_unit"] == 3 * init["forward_flops_per_sequence"] > 0

