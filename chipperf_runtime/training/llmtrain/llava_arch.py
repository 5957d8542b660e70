"""LLaVA-1.5's parameter counts, the parts each FlagPerf stage trains, and its training FLOPs,
from config values (standard library only, so the formulas are tested against the meta-built
transformers model without a GPU).

LLaVA-1.5 = a CLIP ViT vision tower (frozen in both stages), a two-layer GELU MLP projector
(``mlp2x_gelu``: vision width -> LLM width -> LLM width) and a Llama decoder. FlagPerf's two
stages (its ``scripts/pretrain.sh`` and ``finetune.sh``): **pretrain** trains the projector
only (``--tune_mm_mlp_adapter True``), **finetune** the projector and the whole LLM.

Training FLOPs of one sample with ``s`` LLM positions (text + image tokens) and ``k`` images
(0 or 1), 2 FLOPs per multiply-add, the attention scores counted whole (as ``llmtrain.arch``):

* vision tower, forward only (frozen, its input needs no gradient): every one of its layers
  runs (transformers runs the whole tower and takes the second-to-last layer's states), on
  ``t = patches + 1`` tokens: ``k * (2 * N_vit * t + 4 * L_v * h_v * t**2)`` with ``N_vit``
  its matmul weights (the patch embedding on the patches, Q/K/V/O and the MLP of every layer);
* projector, trained in both stages, on the ``p`` patch features: its first linear needs no
  input gradient (the tower is frozen): ``k * p * (4 * v * h + 6 * h * h)``;
* LLM on ``s`` positions: ``s * (c * N_llm + 12 * L * h * s)``, ``N_llm`` =
  ``arch.matmul_params`` (Q/K/V/O, SwiGLU, lm_head), ``c`` = 6 when it trains (finetune) and 4
  when it is frozen (pretrain: forward 2 + the input gradient 2 that carries the loss back to
  the image positions and the projector; no weight gradient).

FlagPerf's own MFU (its run_pretraining.py) is ``tokens/s x 7e9 x 2`` for pretrain and
``x 6`` for finetune: no vision tower, no attention, and a frozen LLM counted forward only.
"""

from __future__ import annotations

from typing import Any, Mapping

from chipperf_runtime.training.llmtrain import arch

STAGES = ("pretrain", "finetune")
# the ``stage`` knob's values: the stages each trains, in order ("both": FlagPerf's case)
RUNS = {"pretrain": ("pretrain",), "finetune": ("finetune",), "both": STAGES}


def vision_params(vision: Mapping[str, Any]) -> int:
    """Every parameter of transformers' CLIPVisionModel (both its layer norms included)."""
    h, inner, layers = vision["hidden_size"], vision["intermediate_size"], vision["num_hidden_layers"]
    patches = (vision["image_size"] // vision["patch_size"]) ** 2
    embeddings = 3 * vision["patch_size"] ** 2 * h + h + (patches + 1) * h
    per_layer = 4 * (h * h + h) + (h * inner + inner) + (inner * h + h) + 2 * 2 * h
    return embeddings + 2 * 2 * h + layers * per_layer


def vision_matmul_params(vision: Mapping[str, Any]) -> int:
    """The tower's weights used in a matmul per token (the patch embedding is one per patch)."""
    h, inner = vision["hidden_size"], vision["intermediate_size"]
    return vision["num_hidden_layers"] * (4 * h * h + 2 * h * inner)


def patches(vision: Mapping[str, Any]) -> int:
    """Image tokens per image (the CLS token dropped: ``vision_feature_select_strategy``
    "default")."""
    return int((vision["image_size"] // vision["patch_size"]) ** 2)


def projector_params(vision: Mapping[str, Any], text: Mapping[str, Any]) -> int:
    v, h = vision["hidden_size"], text["hidden_size"]
    return v * h + h + h * h + h


def parameter_counts(vision: Mapping[str, Any], text: Mapping[str, Any], stage: str
                     ) -> dict[str, int]:
    """{"trainable", "total"} of the whole model in ``stage``."""
    projector, llm = projector_params(vision, text), arch.parameter_count(text)
    trainable = projector + (llm if stage == "finetune" else 0)
    return {"trainable": trainable, "total": vision_params(vision) + projector + llm}


def vision_forward_flops(vision: Mapping[str, Any]) -> int:
    """One image through the whole tower, forward."""
    t, h, layers = patches(vision) + 1, vision["hidden_size"], vision["num_hidden_layers"]
    patch_embedding = 2 * 3 * vision["patch_size"] ** 2 * h * patches(vision)
    return patch_embedding + 2 * vision_matmul_params(vision) * t + 4 * layers * h * t * t


def projector_train_flops(vision: Mapping[str, Any], text: Mapping[str, Any]) -> int:
    """One image's patch features through the projector, forward and backward."""
    v, h = vision["hidden_size"], text["hidden_size"]
    return patches(vision) * (4 * v * h + 6 * h * h)


def llm_train_flops(text: Mapping[str, Any], positions: int, stage: str) -> int:
    per_weight = 6 if stage == "finetune" else 4
    attention_width = text["num_attention_heads"] * arch.head_dim(text)
    return positions * (per_weight * arch.matmul_params(text)
                        + 12 * text["num_hidden_layers"] * attention_width * positions)


def sample_train_flops(vision: Mapping[str, Any], text: Mapping[str, Any], positions: int,
                       images: int, stage: str) -> int:
    """Training FLOPs of one sample (module doc)."""
    image = vision_forward_flops(vision) + projector_train_flops(vision, text)
    return images * image + llm_train_flops(text, positions, stage)


def flops_per_token(vision: Mapping[str, Any], text: Mapping[str, Any],
                    samples: list[tuple[int, int]], stage: str) -> int:
    """Training FLOPs per LLM position over ``samples`` ((positions, images) each): the
    whole set's FLOPs over its positions (FlagPerf too averages the real lengths)."""
    total = sum(sample_train_flops(vision, text, s, k, stage) for s, k in samples)
    return round(total / sum(s for s, _ in samples))
