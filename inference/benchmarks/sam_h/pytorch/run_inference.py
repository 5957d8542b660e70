"""chipperf inference case sam_h (PyTorch model; engines: see common.engines).

Data: a folder of images, each with one point prompt at its centre (``common.prompted``,
SAM's pre-processing). Model: SAM ViT-H (transformers' ``SamModel`` built from its config:
image encoder 32 layers x 1280, 16 heads, global attention at layers 7/15/23/31, 1024-pixel
input; prompt encoder and two-way mask decoder at transformers' defaults; 641,090,864
parameters and 5.96 TFLOPs per image, counted in the tests). Weights: transformers' random
initialisation after ``torch.manual_seed(seed)``, or a checkpoint with ``SamModel``'s names.
``model_size: tiny`` is the CI shape. Output: the low-resolution mask logits
[batch, 1, 3, 256, 256] at 1024 pixels (three masks per prompt, 4 x the patch grid); a user
reads each pixel as in or out of the mask (logit > 0), and those decisions are compared with
the fp32 reference (``mask_agreement``). There are no labels, so the metric is the agreement even
with a checkpoint.
"""

from __future__ import annotations

from chipperf_runtime.models.tvision import prepare_torchvision

prepare_torchvision()  # first, explicitly: torchvision (transformers imports it) beside a CPU torch

import sys
from typing import Any, Mapping

import torch
from torch import nn

from chipperf_runtime.inference.case import Case
from chipperf_runtime.inference.errors import CaseError
from chipperf_runtime.inference.prompted import PromptedImages
from chipperf_runtime.inference.runner import main

# model_size -> (vision, prompt encoder, mask decoder) keyword arguments of SamConfig's parts
PRESETS: dict[str, tuple[dict, dict, dict]] = {
    # SAM ViT-H (facebook/sam-vit-huge: FlagPerf's sam_h)
    "huge": ({"hidden_size": 1280, "num_hidden_layers": 32, "num_attention_heads": 16,
              "global_attn_indexes": [7, 15, 23, 31]}, {}, {}),
    # CI: 2 layers x 32 on 8-pixel patches, windows of 4, a 32-wide prompt encoder and decoder
    "tiny": ({"hidden_size": 32, "output_channels": 32, "num_hidden_layers": 2,
              "num_attention_heads": 2, "patch_size": 8, "window_size": 4,
              "global_attn_indexes": [1], "num_pos_feats": 16, "mlp_dim": 64},
             {"hidden_size": 32, "patch_size": 8, "mask_input_channels": 4},
             {"hidden_size": 32, "mlp_dim": 64, "num_attention_heads": 2,
              "iou_head_hidden_dim": 32}),
}


def load_data(config: Mapping[str, Any], data_dir: str, max_items: int | None) -> PromptedImages:
    problems = [f"{k}: must be null or a whole number >= 1, got {config[k]!r}"
                for k in ("datasize",) if config[k] is not None and
                (not isinstance(config[k], int) or config[k] < 1)]
    if not isinstance(config["image_size"], int) or config["image_size"] < 16 or \
            config["image_size"] % 16:
        problems.append(f"image_size: must be a multiple of 16, got {config['image_size']!r}")
    if config["model_size"] not in PRESETS:
        problems.append(f"model_size {config['model_size']!r} is unknown: use one of "
                        f"{', '.join(PRESETS)}")
    if problems:
        raise CaseError("configuration problems:\n  " + "\n  ".join(problems))
    return PromptedImages.scan(data_dir, config["image_size"], config["datasize"], max_items)


def build(config: Mapping[str, Any]) -> nn.Module:
    from transformers import SamConfig, SamModel

    vision, prompt, decoder = PRESETS[config["model_size"]]
    size = config["image_size"]
    sam_config = SamConfig(vision_config={**vision, "image_size": size},
                           prompt_encoder_config={**prompt, "image_size": size},
                           mask_decoder_config=decoder)
    return _mask_logits_class(SamModel)(sam_config)


def _mask_logits_class(sam_class: type) -> type:
    """``SamModel`` as ``(images, points) -> pred_masks``, one output as every engine expects;
    a subclass, so ``SamModel``'s own state dict names load unchanged."""

    def forward(self: Any, images: torch.Tensor, points: torch.Tensor) -> torch.Tensor:
        return getattr(sam_class, "forward")(self, pixel_values=images,  # noqa: B009
                                             input_points=points).pred_masks

    return type("SamMaskLogits", (sam_class,), {"forward": forward})


def scored(masks: torch.Tensor, targets: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Every mask pixel is a decision; there are no labels (all NO_LABEL)."""
    pixels = masks.reshape(-1)
    return pixels, torch.full_like(pixels, -1, dtype=torch.long)


def in_mask(logits: torch.Tensor) -> torch.Tensor:
    return (logits > 0).to(torch.uint8)


CASE = Case(model="sam_h", input_names=("images", "points"), load_data=load_data,
            build_model=lambda config, data: build(config), scored=scored, decide=in_mask,
            agreement_metric="mask_agreement", labelled=False)

if __name__ == "__main__":
    sys.exit(main(CASE))
