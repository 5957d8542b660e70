"""BERT with its masked-LM head from Hugging Face transformers, built from a config (nothing
downloaded).

``masked_lm(shape)`` is transformers' ``BertForMaskedLM`` built from ``BertConfig(**shape)``,
as a module ``(input_ids, attention_mask) -> logits`` (one tensor output, as every engine and
the ONNX export expect). Parameter names are transformers' own, so a ``torch.save()``d
``state_dict()`` of a ``BertForMaskedLM`` (e.g. bert-large-uncased's) loads unchanged; the
decoder weight is tied to the word embeddings and the decoder bias to the head's bias.
Weights are transformers' random initialisation (N(0, 0.02), zero biases, unit LayerNorm);
the runner seeds torch first, so they are the same for a given ``seed``.
"""

from __future__ import annotations

from typing import Any, Mapping

import torch
from torch import nn


def _logits_class(model_class: type) -> type:
    """``model_class`` whose forward takes (input_ids, attention_mask) and returns logits."""

    def forward(self: Any, input_ids: torch.Tensor, attention_mask: torch.Tensor) -> torch.Tensor:
        return getattr(model_class, "forward")(  # noqa: B009
            self, input_ids=input_ids, attention_mask=attention_mask).logits

    return type(f"{model_class.__name__}Logits", (model_class,), {"forward": forward})


def masked_lm(shape: Mapping[str, Any]) -> nn.Module:
    """``BertForMaskedLM(BertConfig(**shape))``; ``shape`` holds BertConfig's own keys."""
    import transformers

    return _logits_class(transformers.BertForMaskedLM)(transformers.BertConfig(**shape))


def parameter_count(model: nn.Module) -> int:
    """Distinct parameters: the tied decoder weight and bias count once."""
    return sum(p.numel() for p in model.parameters())
