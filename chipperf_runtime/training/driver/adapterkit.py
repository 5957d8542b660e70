"""Steps several vendors' trainer adapters (``<vendor>/<model>-<framework>/extern/trainer_adapter.py``)
take the same way, for them to call from their hooks. The hooks themselves stay ``def``s in each
adapter: the plan reads HOOKS, the functions and NOT_CARRIED from the file without importing it
(chipperf.config.adaptation).
"""

from __future__ import annotations

from typing import Any, Sequence

from torch import nn

# FlagPerf's BERT adapters: parameters whose name holds one of these get no weight decay
BERT_NO_DECAY = ("bias", "gamma", "beta", "LayerNorm")


def decay_groups(model: nn.Module, weight_decay: float,
                 no_decay: Sequence[str] = BERT_NO_DECAY) -> list[dict[str, Any]]:
    """Two optimizer groups: ``weight_decay`` for every parameter whose name holds none of
    ``no_decay``, none for the others."""
    named = list(model.named_parameters())
    plain = [p for n, p in named if any(k in n for k in no_decay)]
    return [{"params": [p for n, p in named if not any(k in n for k in no_decay)],
             "weight_decay": weight_decay},
            {"params": plain, "weight_decay": 0.0}]
