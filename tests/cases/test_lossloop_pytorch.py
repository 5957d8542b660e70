"""The loss-loop cases on the host, one rank each on its CI preset and generated data
(the case's prepare_data.py, run in this process): training reaches the tiny model's target
and FINISHED is valid."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest
from caserun import Case, check_converged, init_end, perflog_events


def prepared(case: Case, out: Path) -> Path:
    """``prepare_data.prepare(out)`` of the case (its folder on sys.path, as the script has)."""
    sys.path.insert(0, str(case.dir))
    try:
        spec = importlib.util.spec_from_file_location(f"prepare_{case.model}",
                                                      case.dir / "prepare_data.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(case.dir))
    return module.prepare(out)


@pytest.mark.parametrize("model", ["tacotron2", "waveglow", "dlrm", "moflow"])
def test_the_ci_preset_converges_on_generated_data(model: str, tmp_path: Path) -> None:
    case = Case(model, "pytorch")
    result = case.run_config(prepared(case, tmp_path / "data"), "--set", "cpu_threads=1")
    assert result.returncode == 0, result.stderr[-4000:]
    events = perflog_events(result.stdout)
    finished = check_converged(events)
    assert finished["flops_per_unit"] == 3 * init_end(events)["forward_flops_per_sample"] > 0
