"""The intel_gaudi path of the stable_diffusion_v1_4 case (common.models.gaudi_diffusion):
Optimum Habana's GaudiStableDiffusionPipeline over the case's own components. There is no
Gaudi and no optimum-habana here (its 1.15.0 pins transformers < 4.46 and diffusers < 0.32), so
``optimum.habana`` and ``optimum.habana.diffusers`` are stand-ins: they record what the case
asks of them and compute with diffusers' own StableDiffusionPipeline and DDIMScheduler on the
CPU. What is checked is the wiring and that the pipeline computes the case's image; nothing
here says how a Gaudi runs it."""

from __future__ import annotations

import copy
import sys
from types import ModuleType, SimpleNamespace
from typing import Any

import pytest
import torch
from inferrun import BENCH, CONFIGS, argv, captured_events, cpu_vendor, load_entry

from chipperf_runtime.models.tvision import prepare_torchvision

prepare_torchvision()   # before diffusers' pipelines import transformers' image processors

from diffusers import DDIMScheduler, StableDiffusionPipeline  # noqa: E402

from chipperf_runtime.inference.errors import CaseError  # noqa: E402
from chipperf_runtime.inference.measure import forward_flops  # noqa: E402
from chipperf_runtime.inference.models import gaudi_diffusion  # noqa: E402
from chipperf_runtime.inference.models.diffusion import text_to_image  # noqa: E402
from chipperf_runtime.perflog import finished_problems  # noqa: E402

CASE_DIR = BENCH / "stable_diffusion_v1_4" / "pytorch"
CI = ["model_size=tiny", "height=16", "width=16", "num_inference_steps=2", "prompt_max_len=16",
      "batch_size=2", "max_items=2", "latency_queries=1", "latency_warmup=1", "warmup_batches=1",
      "scenarios=[offline]"]


class GaudiConfig(SimpleNamespace):
    """Stand-in: optimum.habana.GaudiConfig keeps its keyword arguments."""


def stand_ins(calls: list) -> dict[str, ModuleType]:
    class GaudiDDIMScheduler(DDIMScheduler):
        pass

    class GaudiStableDiffusionPipeline(StableDiffusionPipeline):
        def __init__(self, vae: Any, text_encoder: Any, tokenizer: Any, unet: Any, scheduler: Any,
                     safety_checker: Any, feature_extractor: Any, image_encoder: Any = None,
                     requires_safety_checker: bool = True, use_habana: bool = False,
                     use_hpu_graphs: bool = False, gaudi_config: Any = None,
                     bf16_full_eval: bool = False, sdp_on_bf16: bool = False) -> None:
            calls.append(("init", {"use_habana": use_habana, "use_hpu_graphs": use_hpu_graphs,
                                   "gaudi_config": vars(gaudi_config), "bf16_full_eval": bf16_full_eval,
                                   "scheduler": type(scheduler).__name__, "unet": unet,
                                   "tokenizer": tokenizer}))
            super().__init__(vae, text_encoder, tokenizer, unet, scheduler, safety_checker,
                             feature_extractor, image_encoder, requires_safety_checker)

        def __call__(self, batch_size: int = 1, **kwargs: Any) -> Any:   # 1.15.0's own keyword
            calls.append(("call", {"batch_size": batch_size, **kwargs}))
            return super().__call__(**kwargs)

    habana = ModuleType("optimum.habana")
    habana.GaudiConfig = GaudiConfig   # type: ignore[attr-defined]
    habana.__version__ = "stand-in"    # type: ignore[attr-defined]
    diffusers = ModuleType("optimum.habana.diffusers")
    diffusers.GaudiDDIMScheduler = GaudiDDIMScheduler                      # type: ignore[attr-defined]
    diffusers.GaudiStableDiffusionPipeline = GaudiStableDiffusionPipeline  # type: ignore[attr-defined]
    return {"optimum": ModuleType("optimum"), "optimum.habana": habana,
            "optimum.habana.diffusers": diffusers}


@pytest.fixture
def calls(monkeypatch) -> list:
    recorded: list = []
    for name, module in stand_ins(recorded).items():
        monkeypatch.setitem(sys.modules, name, module)
    return recorded


def tiny() -> tuple[Any, list[torch.Tensor]]:
    torch.manual_seed(0)
    net = text_to_image("tiny", 64, torch.zeros(16, dtype=torch.long), 2, 7.5, 16, (1, 2))
    inputs = [torch.randint(3, 64, (2, 16)), torch.randn(2, 4, 8, 8)]
    return net.eval().requires_grad_(False), inputs


def test_the_pipeline_computes_the_case_image_with_what_gaudi_needs(calls) -> None:
    net, inputs = tiny()
    gaudi = gaudi_diffusion.gaudi_text_to_image(net)
    with torch.no_grad():
        image, expected = gaudi(*inputs), net(*inputs)
    # the same image (the pipeline's post-processing clamps it to the displayable range)
    assert image.shape == (2, 3, 16, 16)
    assert torch.allclose(image, expected.clamp(-1, 1), atol=1e-4)
    (init, made), (call, asked) = calls
    assert (init, call) == ("init", "call")
    assert made["use_habana"] and made["use_hpu_graphs"] and not made["bf16_full_eval"]
    assert made["gaudi_config"] == {**gaudi_diffusion.GAUDI_CONFIG, "use_torch_autocast": False}
    assert (made["scheduler"], made["unet"], made["tokenizer"]) == ("GaudiDDIMScheduler", net.unet, None)
    assert (asked["num_inference_steps"], asked["guidance_scale"], asked["batch_size"]) == (2, 7.5, 2)
    assert (asked["height"], asked["width"], asked["output_type"]) == (16, 16, "pt")
    assert asked["latents"] is inputs[1] and asked["negative_prompt_embeds"].shape == (2, 16, 32)
    assert gaudi.execution["pipeline"] == "GaudiStableDiffusionPipeline"
    # FLOPs counted through the pipeline are the case's own (text encoder twice, UNet, VAE)
    assert forward_flops(gaudi, [t[:1] for t in inputs]) == forward_flops(net, [t[:1] for t in inputs])


def test_the_engines_bf16_copy_builds_its_own_pipeline_and_fp16_is_refused(calls) -> None:
    net, inputs = tiny()
    gaudi = gaudi_diffusion.gaudi_text_to_image(net)
    with torch.no_grad():
        gaudi(*inputs)
        engine_copy = copy.deepcopy(gaudi).to(torch.bfloat16)
        image = engine_copy(inputs[0], inputs[1].bfloat16())
    assert image.dtype == torch.bfloat16 and image.shape == (2, 3, 16, 16)
    bf16 = calls[2][1]
    assert bf16["bf16_full_eval"] and bf16["gaudi_config"] == gaudi_diffusion.GAUDI_CONFIG
    assert bf16["unet"] is engine_copy.unet and bf16["unet"] is not gaudi.unet
    assert gaudi.execution["bf16_full_eval"] is True     # the record is shared with the copy
    with pytest.raises(CaseError, match="GaudiStableDiffusionPipeline runs fp32 or bf16"):
        copy.deepcopy(gaudi).half()(inputs[0], inputs[1].half())


def test_optimum_habana_absent_is_one_clear_message(monkeypatch) -> None:
    monkeypatch.setitem(sys.modules, "optimum.habana", None)   # import fails
    net, inputs = tiny()
    with pytest.raises(CaseError) as caught:
        gaudi_diffusion.gaudi_text_to_image(net)(*inputs)
    assert str(caught.value).startswith("intel_gaudi: optimum-habana is not installed in this "
                                        "image (import optimum.habana: ")
    assert "framework pytorch_optimum_habana" in str(caught.value)
    assert gaudi_diffusion.IMAGE in str(caught.value)


def test_only_the_hpu_device_takes_the_gaudi_pipeline(monkeypatch) -> None:
    net, _ = tiny()
    monkeypatch.setenv("CHIPPERF_DEVICE", "cpu")
    assert gaudi_diffusion.for_device(net) is net
    monkeypatch.setenv("CHIPPERF_DEVICE", "hpu")
    assert isinstance(gaudi_diffusion.for_device(net), gaudi_diffusion.GaudiTextToImage)


def test_the_case_runs_through_it_with_its_records_unchanged(calls, monkeypatch, tmp_path,
                                                             capsys) -> None:
    """The whole case on the CPU with the Gaudi module (for_device as on an hpu): its
    FINISHED is the case's, plus what the pipeline was."""
    import subprocess

    data = tmp_path / "prompts"
    subprocess.run([sys.executable, str(CASE_DIR / "prepare_prompts.py"),
                    "/usr/share/common-licenses", str(data)], check=True, timeout=120)
    cpu_vendor(monkeypatch, "stable_diffusion_v1_4:pytorch_optimum_habana")
    monkeypatch.setattr(gaudi_diffusion, "for_device", gaudi_diffusion.gaudi_text_to_image)
    module = load_entry(CASE_DIR / "run_inference.py", "sd_gaudi_run_inference")
    code = module.main(module.CASE, argv(CONFIGS / "stable_diffusion_v1_4", data, tmp_path / "out",
                                         *CI, "precision=bf16"))
    events, err = captured_events(capsys)
    assert code == 0, err
    finished = events[-1].value
    assert finished_problems(finished, "inference") == []
    assert (finished["precision"], finished["work_done"]) == ("bf16", 2)
    assert finished["reference"]["within_bound"] and finished["converged"]
    ran = finished["execution"]
    assert (ran["pipeline"], ran["scheduler"], ran["use_hpu_graphs"]) == \
        ("GaudiStableDiffusionPipeline", "GaudiDDIMScheduler", True)
    assert set(ran["gaudi_config"]) == {"torch.float32", "torch.bfloat16"}
