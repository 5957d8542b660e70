"""FINISHED's ``preset`` record of a training case run with a smaller model than it is named
after (the protocol in docs/results.md "Reduced presets").

A case's ``_base.py`` names the model of its name (``model_size = "large"``, ``"8b"``, ...); a
vendor config or ``--set`` may pick a smaller one (every cpu CI config: ``model_size =
"tiny"``). Such a run's FINISHED then says so: the preset's name, the run's parameter count
(the case's INIT_END ``parameters``), the named model's (``case.yaml`` ``full_size.params``)
and what changed; every output labels the case from it, "gpt2 (tiny preset: 1.2 M params)"
(chipperf.results.compute.preset). Nothing here is fixed text: all comes from the run.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Optional

from chipperf_runtime.training.driver.config import OVERRIDE, Config

PRESET_KEYS = ("model_size",)      # the config keys that pick the model's size
SET_BY = {OVERRIDE: "--set"}       # any other layer: the vendor config
_FULL_PARAMS = re.compile(r"^full_size:\s*$\n(?:^[ \t]+.*\n|^\s*\n)*?^[ \t]+params:\s*(\d+)",
                          re.MULTILINE)


def preset_record(config: Config, params: Any, full_params: Optional[int]) -> Optional[dict]:
    """The ``preset`` record of a run whose size keys differ from ``_base.py``'s; None when
    the run's model is the one the case is named after."""
    changes = {k: [config[k], config.default(k)] for k in PRESET_KEYS
               if k in config and config[k] != config.default(k)}
    if not changes:
        return None
    first = next(iter(changes))
    record: dict[str, Any] = {
        "name": str(config[first]), "changes": changes,
        "set_by": SET_BY.get(config.source(first), "vendor configuration")}
    if isinstance(params, int) and not isinstance(params, bool) and params > 0:
        record["params"] = params
    if full_params:
        record["full_params"] = full_params
    return record


def full_size_params(case_dir: Path) -> Optional[int]:
    """``full_size.params`` of the case's ``case.yaml`` (the named model's parameter count),
    read without a YAML library (not every framework's image has one); None when absent."""
    try:
        text = (Path(case_dir) / "case.yaml").read_text(encoding="utf-8")
    except OSError:
        return None
    found = _FULL_PARAMS.search(text)
    return int(found.group(1)) if found else None
