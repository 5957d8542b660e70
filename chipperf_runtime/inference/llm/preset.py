"""Whether a run's model is the case's full model or a reduced preset, from the run's config.

The base configuration.yaml holds the model the case is named after (llama3_8b: Llama 3 8B's
shape); a vendor file or ``--set`` may shrink it (the cpu CI preset: 2 layers x 64). The
FINISHED ``preset`` record says so, with the run's real parameter count, the full model's,
and every shape key that differs; the results code builds the label every output shows
from it (chipperf.results.compute.preset). The full model is counted from its shape, not built.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, Optional

from chipperf_runtime.inference import config as configuration

# the model's shape keys (model.py checks them); here, torch-free: the engine imports this module
SHAPE_KEYS = ("vocab_size", "hidden_size", "intermediate_size", "num_layers", "num_heads",
              "num_kv_heads", "max_position")


def llama_parameters(shape: Mapping[str, Any]) -> int:
    """Parameters of ``LlamaForCausalLM`` (untied embeddings, no biases) of a config's shape:
    embeddings and LM head, per layer q/k/v/o, gate/up/down and two norms, a final norm."""
    hidden, layers = int(shape["hidden_size"]), int(shape["num_layers"])
    kv = hidden // int(shape["num_heads"]) * int(shape["num_kv_heads"])
    attention = 2 * hidden * hidden + 2 * hidden * kv
    mlp = 3 * hidden * int(shape["intermediate_size"])
    return 2 * int(shape["vocab_size"]) * hidden + layers * (attention + mlp + 2 * hidden) + hidden


def shape_changes(run: Mapping[str, Any], base: Mapping[str, Any]) -> dict[str, list[Any]]:
    """Shape key -> [the run's value, the full model's] for every key the run changed."""
    return {k: [run[k], base[k]] for k in SHAPE_KEYS if run.get(k) != base.get(k)}


def preset_record(run: Mapping[str, Any], base: Mapping[str, Any],
                  params: int) -> Optional[dict[str, Any]]:
    """FINISHED's ``preset``: None when the run's model is the full one."""
    changes = shape_changes(run, base)
    if not changes:
        return None
    return {"name": "reduced", "params": params, "full_params": llama_parameters(base),
            "changes": changes, "set_by": "vendor configuration or --set (shape keys)"}


def base_config(config_dir: str | Path) -> Mapping[str, Any]:
    """The case's own configuration.yaml alone (no vendor file, no --set)."""
    return configuration.load(config_dir, None)
