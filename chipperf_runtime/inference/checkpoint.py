"""Loading real weights: a ``torch.save``-d state dict given as ``checkpoint`` in the config."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping

import torch
from torch import nn

from chipperf_runtime.inference.errors import CaseError

WRAPPERS = ("state_dict", "model", "model_state_dict")


def load_into(model: nn.Module, path: str, ignorable: tuple[str, ...] = ()) -> None:
    """Load ``path`` into ``model``; every missing or unexpected key is an error."""
    file = Path(path)
    if not file.is_file():
        raise CaseError(f"checkpoint {file} does not exist: give a torch.save()d state dict, or "
                        "set checkpoint: null for random weights (then the metric is agreement "
                        "with fp32 eager)")
    try:
        state = torch.load(file, map_location="cpu", weights_only=True)
    except Exception as exc:  # noqa: BLE001 - any unreadable file gets the same advice
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise CaseError(f"checkpoint {file} cannot be read by torch.load(weights_only=True): "
                        f"{first}: give a torch.save()d state dict") from exc
    state = _unwrap(state, file)
    result = model.load_state_dict(state, strict=False)
    missing = _untied(model, result.missing_keys, state)
    unexpected = [k for k in result.unexpected_keys if not k.startswith(ignorable)]
    if missing or unexpected:
        raise CaseError(f"checkpoint {file} does not fit the model: missing "
                        f"{_few(missing)}; unexpected {_few(unexpected)}: give a "
                        "state dict with the model's parameter names (see docs/inference.md)")


def _untied(model: nn.Module, missing: list[str], given: Mapping[str, Any]) -> list[str]:
    """The missing keys that are not another name of a tensor the checkpoint gave (a tied
    weight, e.g. BERT's decoder bias, which is its head's bias, saved under one name)."""
    tensors = model.state_dict(keep_vars=True)
    loaded = {id(tensors[k]) for k in given if k in tensors}
    return [k for k in missing if id(tensors[k]) not in loaded]


def _unwrap(state: Any, file: Path) -> Mapping[str, torch.Tensor]:
    for key in WRAPPERS:
        if isinstance(state, Mapping) and isinstance(state.get(key), Mapping):
            state = state[key]
    if not isinstance(state, Mapping):
        raise CaseError(f"checkpoint {file} holds a {type(state).__name__}, not a state dict")
    return {k.removeprefix("module."): v for k, v in state.items()}


def _few(keys: list[str]) -> str:
    if not keys:
        return "none"
    return ", ".join(keys[:5]) + (f" and {len(keys) - 5} more" if len(keys) > 5 else "")
