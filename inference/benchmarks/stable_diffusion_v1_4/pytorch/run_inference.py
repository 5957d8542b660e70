"""chipperf inference case stable_diffusion_v1_4 (PyTorch model; engines: see common.engines).

Data: text prompts and CLIP's tokenizer files (``common.prompts``); item i starts from noise
seeded by ``seed`` and i. Model: Stable Diffusion v1.4's text-to-image pipeline as one module
(``common.models.diffusion``): CLIP text encoder (123,060,480 parameters), UNet
(859,520,964) and VAE (83,653,863), built from diffusers' and transformers' configs with
random weights after ``torch.manual_seed(seed)``; ``num_inference_steps`` DDIM steps with
classifier-free guidance, then the VAE decoder. 82.87 TFLOPs per 512 x 512 image at 50 steps
and guidance 7.5 (counted in the tests). ``model_size: tiny`` is the CI shape. Output: the
image [batch, 3, height, width] in [-1, 1]; a user reads its 8-bit values, and those are
compared with the fp32 reference's (``pixel_agreement``: within 2 levels). No labels.
On intel_gaudi (device ``hpu``) the same components run through Optimum Habana's
GaudiStableDiffusionPipeline (HPU graphs, GaudiDDIMScheduler; ``common.models.gaudi_diffusion``,
in the pytorch_optimum_habana image); never run on a Gaudi by chipperf.
"""

from __future__ import annotations

from chipperf_runtime.models.tvision import prepare_torchvision

prepare_torchvision()  # first, explicitly: torchvision (transformers imports it) beside a CPU torch

import sys
from typing import Any, Mapping

import torch
from torch import nn

from chipperf_runtime.inference import prompts
from chipperf_runtime.inference.case import Case
from chipperf_runtime.inference.errors import CaseError
from chipperf_runtime.inference.models.diffusion import PRESETS, text_to_image, vae_factor
from chipperf_runtime.inference.models.gaudi_diffusion import for_device
from chipperf_runtime.inference.runner import main

LEVELS = 2   # 8-bit levels within which an engine's pixel agrees with the reference's


def load_data(config: Mapping[str, Any], data_dir: str, max_items: int | None) -> prompts.Prompts:
    problems = check(config)
    if problems:
        raise CaseError("configuration problems:\n  " + "\n  ".join(problems))
    factor = vae_factor(PRESETS[config["model_size"]])
    shape = (4, config["height"] // factor, config["width"] // factor)
    limit = min(n for n in (config["prompt_samples"], max_items, 10**9) if n)
    return prompts.load(data_dir, config["prompts"], config["tokenizer"], config["prompt_max_len"],
                        shape, config["seed"], limit)


def check(config: Mapping[str, Any]) -> list[str]:
    size = config["model_size"]
    if size not in PRESETS:
        return [f"model_size {size!r} is unknown: use one of {', '.join(PRESETS)}"]
    out = [f"{k}: must be a whole number >= 1, got {config[k]!r}"
           for k in ("height", "width", "num_inference_steps", "prompt_max_len")
           if not isinstance(config[k], int) or config[k] < 1]
    if out:
        return out
    text, unet, _ = PRESETS[size]
    multiple = vae_factor(PRESETS[size]) * 2 ** (len(unet["block_out_channels"]) - 1)
    out += [f"{k}: {config[k]} is not a multiple of {multiple} (the VAE's and UNet's "
            f"downsampling for model_size {size})" for k in ("height", "width")
            if config[k] % multiple]
    context = text["max_position_embeddings"]
    if config["prompt_max_len"] > context:
        out.append(f"prompt_max_len {config['prompt_max_len']} is longer than the text "
                   f"encoder's context ({context} tokens): lower prompt_max_len")
    if config["num_inference_steps"] > 1000:
        out.append("num_inference_steps: at most 1000 (the training schedule's steps)")
    return out


def build_model(config: Mapping[str, Any], data: prompts.Prompts) -> nn.Module:
    return for_device(text_to_image(config["model_size"], data.vocab_size, data.empty_ids,
                                    config["num_inference_steps"], config["guidance_scale"],
                                    config["height"], data.special_ids))


def scored(images: torch.Tensor, targets: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    values = images.reshape(-1)
    return values, torch.full_like(values, -1, dtype=torch.long)


def eight_bit(images: torch.Tensor) -> torch.Tensor:
    """What a user reads: the image's 8-bit channel values."""
    return ((images.float() / 2 + 0.5).clamp(0, 1) * 255).round().to(torch.uint8)


def within_levels(values: torch.Tensor, reference: torch.Tensor) -> torch.Tensor:
    return (values.to(torch.int16) - reference.to(torch.int16)).abs() <= LEVELS


CASE = Case(model="stable_diffusion_v1_4", input_names=("input_ids", "latents"),
            load_data=load_data, build_model=build_model, scored=scored, decide=eight_bit,
            agreement_metric="pixel_agreement", agree=within_levels, labelled=False)

if __name__ == "__main__":
    sys.exit(main(CASE))
