"""The label of a case run with a reduced preset, built from what the run itself reported.

A case whose model is smaller than the one it is named after (a CI preset: fewer layers, a
narrower model, a small vocabulary) says so in FINISHED's optional ``preset`` record:
``{"params": <the run's parameter count>, "full_params": <the named model's>, "changes":
{<config key>: [<run's value>, <full model's>], ...}}``. Every output then shows the case as
e.g. "llama3_8b (reduced preset: 0.612 M params)", with the changes beside it: the text
comes from the run's config and counts, never from fixed text.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from chipperf.results.compute.fingerprint import workload
from chipperf.results.read.tolerant import as_dict


def count_text(n: float) -> str:
    """A parameter count as people write it: 8.03 B, 0.612 M, 4,096."""
    if n >= 1e9:
        return f"{n / 1e9:.3g} B"
    if n >= 1e5:
        return f"{n / 1e6:.3g} M"
    return f"{int(n):,}"


def preset_label(record: Any) -> tuple[str, str]:
    """(short label, detail) of a FINISHED ``preset`` record; ('', '') when there is none."""
    preset = as_dict(record)
    if not preset:
        return "", ""
    params = preset.get("params")
    name = str(preset.get("name") or "reduced")
    short = f"{name} preset" + (f": {count_text(params)} params"
                                if isinstance(params, (int, float)) else "")
    return short, _detail(preset)


def _detail(preset: Mapping[str, Any]) -> str:
    full = preset.get("full_params")
    parts = [f"the full model has {count_text(full)} params"] \
        if isinstance(full, (int, float)) else []
    changes = as_dict(preset.get("changes"))
    parts += [f"{k} {v[0]} (full {v[1]})" for k, v in changes.items()
              if isinstance(v, list) and len(v) == 2]
    return "; ".join(parts) + ("; " if parts else "") + \
        "a smoke test of the machine, not the named model's performance"


def smoke_text(submit: Any) -> str:
    """The smoke label of a case whose data card says it is a smoke test (SUBMIT_INFO's
    ``dataset``), with the size the run itself used (the workload's ``image_size``)
    beside the card's native ``image_size``; '' when the card says nothing, or when the run
    read no data in its timed window (config ``data_mode`` synthetic: the figure's own label,
    "synthetic: compute only", says what it is)."""
    info = as_dict(submit)
    card = as_dict(info.get("dataset"))
    if as_dict(info.get("config")).get("data_mode") == "synthetic":
        return ""
    text = str(card.get("smoke_test") or "")
    native, used = card.get("image_size"), workload(info).image_size
    if text and used is not None:
        source = f" from {native}x{native}" if isinstance(native, int) else ""
        text += f" (this run: images resized{source} to {used}x{used}, config image_size)"
    return text
