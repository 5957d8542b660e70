"""Stable Diffusion on an Intel Gaudi (device ``hpu``) through Optimum Habana's
``GaudiStableDiffusionPipeline``, with the case's own components.

optimum-habana 1.15.0 (the release the pytorch_optimum_habana images pin;
``optimum/habana/diffusers/pipelines/stable_diffusion/pipeline_stable_diffusion.py``): the
pipeline is built from the case's CLIP text encoder, UNet and VAE (the same modules, weights
and precision the engine prepared) with ``GaudiDDIMScheduler`` at Stable Diffusion v1's
settings (``diffusion.SCHEDULE``), ``use_habana=True``, ``use_hpu_graphs=True`` (the UNet step
captured once per shape and replayed) and a ``GaudiConfig`` built here with the values of
``Habana/stable-diffusion``'s gaudi_config.json (Hugging Face Hub, main at 60ee357:
use_fused_adam, use_fused_clip_norm, use_torch_autocast all true), so nothing is downloaded.
bf16 weights run as Optimum Habana's ``bf16_full_eval`` (what its ``from_pretrained`` sets for
``torch_dtype=torch.bfloat16``, the seed's ``--bf16``); the fp32 reference runs without
autocast, so it stays fp32. fp16 is refused (the pipeline autocasts to bf16 only).

The module keeps ``TextToImage``'s contract, so the case's timing and records are unchanged:
``forward(input_ids, latents) -> image [batch, 3, height, width] in [-1, 1]``. The prompt and
empty-prompt embeddings come from the case's text encoder (``prompt_embeds`` /
``negative_prompt_embeds``: no tokenizer in the pipeline), the given latents are the
pipeline's, 50 DDIM steps with guidance 7.5 and the VAE decode run inside it, and its
``output_type="pt"`` image in [0, 1] (clamped there by its post-processing) is mapped back to
[-1, 1]. What was built is ``execution`` (FINISHED's ``execution``).

Never run on a Gaudi by chipperf: tests/cases/test_gaudi_diffusion.py runs this wiring on the
CPU with stand-ins for optimum.habana that record the calls and do diffusers' own math.
"""

from __future__ import annotations

import importlib
import os
from typing import Any

import torch

from chipperf_runtime.device import ENV_DEVICE
from chipperf_runtime.inference.errors import CaseError
from chipperf_runtime.inference.models.diffusion import SCHEDULE, TextToImage
from chipperf_runtime.vendors.intel_gaudi import optimum_habana_missing

IMAGE = "inference/intel_gaudi/docker_image/pytorch_optimum_habana/"
# Habana/stable-diffusion's gaudi_config.json (Hugging Face Hub, main at 60ee357)
GAUDI_CONFIG = {"use_fused_adam": True, "use_fused_clip_norm": True, "use_torch_autocast": True}
GAUDI_CONFIG_FROM = "Habana/stable-diffusion gaudi_config.json (main 60ee357), built in code"


class _Shared(dict):
    """What every copy of the module built (the engine's deepcopy shares the reference's)."""

    def __deepcopy__(self, memo: dict) -> "_Shared":
        return self


class _PerCopy:
    """This copy's pipeline: a deepcopy of the module starts without one (the engine casts its
    copy, then builds its own over its own components; HPU graphs are not copied)."""

    def __init__(self) -> None:
        self.pipeline: Any = None

    def __deepcopy__(self, memo: dict) -> "_PerCopy":
        return _PerCopy()


class GaudiTextToImage(TextToImage):
    """``TextToImage`` whose forward runs Optimum Habana's pipeline over its components."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.built = _PerCopy()
        self.execution = _Shared()

    def forward(self, input_ids: torch.Tensor, latents: torch.Tensor) -> torch.Tensor:
        pipeline = self.pipeline()
        context = self.text_encoder(input_ids).last_hidden_state
        guided = self.guidance_scale > 1.0
        empty = self.text_encoder(self.uncond_ids.expand(input_ids.shape[0], -1)).last_hidden_state \
            if guided else None
        factor = 2 ** (len(self.vae.config.block_out_channels) - 1)
        out = pipeline(prompt_embeds=context, negative_prompt_embeds=empty, latents=latents,
                       height=latents.shape[-2] * factor, width=latents.shape[-1] * factor,
                       num_inference_steps=len(self.schedule), guidance_scale=self.guidance_scale,
                       batch_size=input_ids.shape[0], eta=0.0, output_type="pt")
        return out.images * 2 - 1

    def pipeline(self) -> Any:
        """The pipeline over this copy's components, built at their dtype on the first call
        (once: with bf16_full_eval the pipeline keeps the UNet's conv_in in fp32)."""
        if self.built.pipeline is None:
            self.built.pipeline = self._build(self.text_encoder.dtype)
        return self.built.pipeline

    def _build(self, dtype: torch.dtype) -> Any:
        if dtype not in (torch.float32, torch.bfloat16):
            raise CaseError(f"intel_gaudi: GaudiStableDiffusionPipeline runs fp32 or bf16 (its "
                            f"autocast is bf16), not {dtype}: set precision to bf16 or fp32")
        habana, diffusers = import_optimum_habana()
        bf16 = dtype == torch.bfloat16
        # fp32 (the reference): no autocast, so it stays fp32; bf16: Optimum Habana's
        # bf16_full_eval, which turns the config's autocast off itself
        values = {**GAUDI_CONFIG, **({} if bf16 else {"use_torch_autocast": False})}
        scheduler = diffusers.GaudiDDIMScheduler(**SCHEDULE)
        pipeline = diffusers.GaudiStableDiffusionPipeline(
            vae=self.vae, text_encoder=self.text_encoder, tokenizer=None, unet=self.unet,
            scheduler=scheduler, safety_checker=None, feature_extractor=None,
            requires_safety_checker=False, use_habana=True, use_hpu_graphs=True,
            gaudi_config=habana.GaudiConfig(**values), bf16_full_eval=bf16)
        self.execution.update({
            "pipeline": type(pipeline).__name__, "scheduler": type(scheduler).__name__,
            "optimum_habana": getattr(habana, "__version__", "unknown"),
            "use_habana": True, "use_hpu_graphs": True, "gaudi_config_from": GAUDI_CONFIG_FROM,
            "gaudi_config": {**self.execution.get("gaudi_config", {}), str(dtype): values},
            "bf16_full_eval": bf16 or bool(self.execution.get("bf16_full_eval"))})
        return pipeline


def import_optimum_habana() -> tuple[Any, Any]:
    """``optimum.habana`` and ``optimum.habana.diffusers``; CaseError naming the image that
    installs them when they do not import."""
    try:
        return (importlib.import_module("optimum.habana"),
                importlib.import_module("optimum.habana.diffusers"))
    except ImportError as error:
        raise CaseError(optimum_habana_missing(error, IMAGE)) from error


def gaudi_text_to_image(net: TextToImage) -> GaudiTextToImage:
    """The same components, schedule and guidance, run through the Gaudi pipeline."""
    gaudi = GaudiTextToImage(net.text_encoder, net.unet, net.vae, net.uncond_ids,
                             len(net.schedule), net.guidance_scale)
    gaudi.schedule = net.schedule
    return gaudi


def for_device(net: TextToImage) -> TextToImage:
    """``net`` through the Gaudi pipeline where the vendor names the ``hpu`` device; ``net``
    itself on every other device."""
    return gaudi_text_to_image(net) if os.environ.get(ENV_DEVICE) == "hpu" else net
