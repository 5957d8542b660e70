"""The stable_diffusion_v1_4 inference case (diffusers' UNet and VAE, transformers' CLIP text
encoder, DDIM with guidance) at CI size through its entry's main: fp32 and bf16 eager and
ONNX Runtime against the fp32 eager reference; the full-size parameters and FLOPs; bad input."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import torch
from inferrun import BENCH, CONFIGS, argv, captured_events, cpu_vendor, load_entry

from chipperf_runtime.perflog import finished_problems

CASE_DIR = BENCH / "stable_diffusion_v1_4" / "pytorch"
CI = ["model_size=tiny", "height=16", "width=16", "num_inference_steps=2", "prompt_max_len=16",
      "batch_size=2", "max_items=4", "latency_queries=2", "latency_warmup=1", "warmup_batches=1"]
LABEL = "stable_diffusion_v1_4:pytorch_2.13"


@pytest.fixture(autouse=True)
def _cpu_vendor_device(monkeypatch):
    cpu_vendor(monkeypatch, LABEL)


@pytest.fixture(scope="module")
def prompts(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("prompts")
    subprocess.run([sys.executable, str(CASE_DIR / "prepare_prompts.py"), "/usr/share/common-licenses",
                    str(out)], check=True, timeout=120)
    return out


def entry():
    return load_entry(CASE_DIR / "run_inference.py", "sd_run_inference")


def run(data: Path, out: Path, capsys, *sets: str) -> tuple[int, list, str]:
    module = entry()
    code = module.main(module.CASE, argv(CONFIGS / "stable_diffusion_v1_4", data, out, *CI, *sets))
    return code, *captured_events(capsys)


@pytest.mark.parametrize("engine,precision", [("eager", "fp32"), ("eager", "bf16"),
                                              ("onnxruntime", "fp32")])
def test_pipeline_runs_within_its_bound(prompts, tmp_path, capsys, engine, precision) -> None:
    code, events, err = run(prompts, tmp_path, capsys, f"engine={engine}", f"precision={precision}")
    assert code == 0, err
    f = events[-1].value
    assert finished_problems(f, "inference") == []
    assert (f["engine"], f["precision"], f["work_done"]) == (engine, precision, 4)
    assert f["metric"]["name"] == "pixel_agreement"
    assert f["metric"]["value"] >= f["metric"]["target"] and f["converged"] is True
    ref = f["reference"]
    assert ref["within_bound"] and ref["max_abs_reference"] > 0.1       # a real image came out
    # the reference itself gives 0; another engine or precision really ran
    assert (ref["max_abs_diff"] == 0.0) == ((engine, precision) == ("eager", "fp32"))
    evaluation = events[-2].value
    assert evaluation["scored"] == 4 * 3 * 16 * 16 and evaluation["reference_distinct_top1"] > 50
    assert events[2].value["data"]["latent_shape"] == [4, 8, 8]


def test_full_size_parameters_and_flops() -> None:
    """v1.4's three models, and the FLOPs of 50 guided steps at 512 px: text encoder twice,
    100 UNet passes, one VAE decode (linear in the steps: counted at 1 and 2 steps)."""
    from chipperf_runtime.inference.measure import forward_flops
    from chipperf_runtime.inference.models.diffusion import text_to_image

    counts = []
    with torch.device("meta"):
        for steps in (1, 2):
            net = text_to_image("v1_4", 49408, torch.zeros(77, dtype=torch.long), steps, 7.5, 512)
            net = net.eval().requires_grad_(False)
            counts.append(forward_flops(net, [torch.zeros(1, 77, dtype=torch.long),
                                              torch.zeros(1, 4, 64, 64)]))
        params = [sum(p.numel() for p in m.parameters()) for m in (net.text_encoder, net.unet, net.vae)]
    assert params == [123_060_480, 859_520_964, 83_653_863]
    per_step = counts[1] - counts[0]
    assert per_step == pytest.approx(2 * 0.8e12, rel=0.05)             # two UNet passes (guidance)
    assert counts[0] + 49 * per_step == pytest.approx(82.87e12, rel=0.001)


def test_ddim_step_is_diffusers() -> None:
    from diffusers import DDIMScheduler

    from chipperf_runtime.inference.models.diffusion import SCHEDULE, ddim_schedule, ddim_step

    scheduler = DDIMScheduler(**SCHEDULE)
    scheduler.set_timesteps(5)
    latents, noise = torch.randn(1, 4, 8, 8), torch.randn(1, 4, 8, 8)
    for t, alpha, alpha_prev in ddim_schedule(5):
        expected = scheduler.step(noise, t, latents).prev_sample
        assert torch.allclose(ddim_step(latents, noise, alpha, alpha_prev), expected, atol=1e-5)


@pytest.mark.parametrize("sets,message", [
    (["prompt_max_len=100"], "prompt_max_len 100 is longer than the text encoder's context (77 tokens)"),
    (["height=18"], "height: 18 is not a multiple of 4"),
    (["model_size=xl"], "model_size 'xl' is unknown: use one of v1_4, tiny"),
    (["prompts=missing.txt"], "prompts file"),
    (["tokenizer=nowhere"], "lacks vocab.json, merges.txt: copy CLIP's tokenizer files there"),
])
def test_bad_input_is_one_clear_error(prompts, tmp_path, capsys, sets, message) -> None:
    code, _, err = run(prompts, tmp_path, capsys, *sets)
    assert code == 2 and f"chipperf inference case {LABEL}: error:" in err and message in err
