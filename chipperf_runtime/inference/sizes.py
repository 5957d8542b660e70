"""Whether an inference run's model and work per item are the case's own, from its config.

The case's base configuration.yaml names the model of its name at its published size
(``model_size: huge``, ``image_size: 1024``, 512 px and 50 steps for Stable Diffusion); a
vendor file or ``--set`` may change them (the CI runs: ``model_size: tiny``, 256 px, 10
steps). The FINISHED ``preset`` record then says so, with the run's parameter count and every
size key that differs; every output labels the case from it (chipperf.results.compute.preset).
llama3_8b's shape keys have their own record (chipperf_runtime.inference.llm.preset).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Optional

# Keys that set the model's size or the work one item costs, in any case's configuration.
SIZE_KEYS = ("model_size", "image_size", "height", "width", "num_inference_steps", "seq_len")


def preset_record(run: Mapping[str, Any], base: Mapping[str, Any],
                  params: int) -> Optional[dict[str, Any]]:
    """FINISHED's ``preset``: None when every size key is the base configuration's."""
    changes = {k: [run.get(k), base[k]] for k in SIZE_KEYS if k in base and run.get(k) != base[k]}
    if not changes:
        return None
    return {"name": _name(changes), "params": params, "changes": changes,
            "set_by": "vendor configuration or --set"}


def _name(changes: Mapping[str, list[Any]]) -> str:
    """The run's model_size where it changed, else "reduced" when a size went down."""
    if "model_size" in changes:
        return str(changes["model_size"][0])
    smaller = any(isinstance(a, (int, float)) and isinstance(b, (int, float)) and a < b
                  for a, b in changes.values())
    return "reduced" if smaller else "changed"
