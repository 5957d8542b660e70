"""Stable Diffusion's text-to-image pipeline as one module, from diffusers' and transformers'
configs (nothing downloaded): CLIP text encoder -> ``steps`` UNet denoising steps with
classifier-free guidance and DDIM updates -> VAE decoder.

``TextToImage(input_ids, latents) -> image`` takes the prompt's token ids [batch, seq] and the
initial noise [batch, 4, height / f, width / f] (f = the VAE's downsampling) and returns the
decoded image [batch, 3, height, width] in [-1, 1]. The schedule is diffusers' DDIMScheduler
with Stable Diffusion v1's settings (scaled-linear betas 0.00085 .. 0.012 over 1000 training
steps, ``steps_offset`` 1, eta 0); its alphas are Python floats, so a cast to fp16 or bf16
leaves the schedule in full precision and exports bake it in as constants.
"""

from __future__ import annotations

import math
from typing import Any, Mapping, Sequence

import torch
from torch import nn

VAE_SCALING = 0.18215   # Stable Diffusion v1's latent scaling factor
SCHEDULE = {"num_train_timesteps": 1000, "beta_start": 0.00085, "beta_end": 0.012,
            "beta_schedule": "scaled_linear", "clip_sample": False, "set_alpha_to_one": False,
            "steps_offset": 1}


def ddim_schedule(steps: int) -> list[tuple[int, float, float]]:
    """(timestep, alpha_cumprod at it, at the previous timestep) for each of ``steps`` steps."""
    from diffusers import DDIMScheduler

    with torch.device("cpu"):  # plain numbers, whatever the default device (meta counts FLOPs)
        scheduler: Any = DDIMScheduler(**SCHEDULE)
        scheduler.set_timesteps(steps)
    alphas = scheduler.alphas_cumprod
    ratio = 1000 // steps   # SCHEDULE's num_train_timesteps
    out = []
    for t in scheduler.timesteps.tolist():
        prev = t - ratio
        out.append((int(t), float(alphas[t]),
                    float(alphas[prev]) if prev >= 0 else float(scheduler.final_alpha_cumprod)))
    return out


def ddim_step(latents: torch.Tensor, noise: torch.Tensor, alpha: float, alpha_prev: float) -> torch.Tensor:
    """DDIM (eta 0): the predicted clean latents, moved to the previous timestep."""
    clean = (latents - math.sqrt(1.0 - alpha) * noise) / math.sqrt(alpha)
    return math.sqrt(alpha_prev) * clean + math.sqrt(1.0 - alpha_prev) * noise


class TextToImage(nn.Module):
    uncond_ids: torch.Tensor

    def __init__(self, text_encoder: Any, unet: Any, vae: Any, uncond_ids: torch.Tensor,
                 steps: int, guidance_scale: float):
        super().__init__()
        self.text_encoder: Any = text_encoder
        self.unet: Any = unet
        self.vae: Any = vae
        self.register_buffer("uncond_ids", uncond_ids.reshape(1, -1), persistent=False)
        self.schedule = ddim_schedule(steps)
        self.guidance_scale = guidance_scale

    def forward(self, input_ids: torch.Tensor, latents: torch.Tensor) -> torch.Tensor:
        context = self.text_encoder(input_ids).last_hidden_state
        guided = self.guidance_scale > 1.0
        if guided:
            empty = self.text_encoder(self.uncond_ids.expand(input_ids.shape[0], -1)).last_hidden_state
            context = torch.cat([empty, context])
        for t, alpha, alpha_prev in self.schedule:
            model_in = torch.cat([latents, latents]) if guided else latents
            noise = self.unet(model_in, t, encoder_hidden_states=context).sample
            if guided:
                uncond, cond = noise.chunk(2)
                noise = uncond + self.guidance_scale * (cond - uncond)
            latents = ddim_step(latents, noise, alpha, alpha_prev)
        return self.vae.decode(latents / VAE_SCALING).sample


# model_size -> keyword arguments of (CLIPTextConfig, UNet2DConditionModel, AutoencoderKL)
PRESETS: dict[str, tuple[dict, dict, dict]] = {
    # Stable Diffusion v1.4 (CompVis/stable-diffusion-v1-4's config files)
    "v1_4": ({"hidden_size": 768, "intermediate_size": 3072, "num_hidden_layers": 12,
              "num_attention_heads": 12, "max_position_embeddings": 77, "hidden_act": "quick_gelu",
              "projection_dim": 768},
             {"sample_size": 64, "in_channels": 4, "out_channels": 4,
              "down_block_types": ["CrossAttnDownBlock2D"] * 3 + ["DownBlock2D"],
              "up_block_types": ["UpBlock2D"] + ["CrossAttnUpBlock2D"] * 3,
              "block_out_channels": [320, 640, 1280, 1280], "layers_per_block": 2,
              "cross_attention_dim": 768, "attention_head_dim": 8},
             {"in_channels": 3, "out_channels": 3, "latent_channels": 4, "sample_size": 512,
              "down_block_types": ["DownEncoderBlock2D"] * 4,
              "up_block_types": ["UpDecoderBlock2D"] * 4,
              "block_out_channels": [128, 256, 512, 512], "layers_per_block": 2}),
    # CI: 2 x 32 text encoder, a two-level UNet of 32 / 64 channels, a two-level VAE (f = 2)
    "tiny": ({"hidden_size": 32, "intermediate_size": 64, "num_hidden_layers": 2,
              "num_attention_heads": 2, "max_position_embeddings": 77, "hidden_act": "quick_gelu",
              "projection_dim": 32},
             {"sample_size": 8, "in_channels": 4, "out_channels": 4,
              "down_block_types": ["CrossAttnDownBlock2D", "DownBlock2D"],
              "up_block_types": ["UpBlock2D", "CrossAttnUpBlock2D"],
              "block_out_channels": [32, 64], "layers_per_block": 1,
              "cross_attention_dim": 32, "attention_head_dim": 8},
             {"in_channels": 3, "out_channels": 3, "latent_channels": 4, "sample_size": 16,
              "down_block_types": ["DownEncoderBlock2D"] * 2,
              "up_block_types": ["UpDecoderBlock2D"] * 2,
              "block_out_channels": [32, 64], "layers_per_block": 1}),
}


def vae_factor(preset: Sequence[Mapping[str, Any]]) -> int:
    """How many pixels a latent pixel stands for (8 for Stable Diffusion's VAE)."""
    return 2 ** (len(preset[2]["block_out_channels"]) - 1)


def text_to_image(size: str, vocab_size: int, uncond_ids: torch.Tensor, steps: int,
                  guidance_scale: float, height: int,
                  special_ids: tuple[int, int] = (49406, 49407)) -> TextToImage:
    """The pipeline of preset ``size`` with fresh weights (diffusers' and transformers'
    initialisation; seed torch first)."""
    from diffusers import AutoencoderKL, UNet2DConditionModel
    from transformers import CLIPTextConfig, CLIPTextModel

    text, unet, vae = PRESETS[size]
    factor = 2 ** (len(vae["block_out_channels"]) - 1)
    encoder = CLIPTextModel(CLIPTextConfig(**text, vocab_size=vocab_size,
                                           bos_token_id=special_ids[0], eos_token_id=special_ids[1]))
    return TextToImage(encoder, UNet2DConditionModel(**{**unet, "sample_size": height // factor}),
                       AutoencoderKL(**{**vae, "sample_size": height}), uncond_ids, steps,
                       guidance_scale)
