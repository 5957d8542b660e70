"""llava1.5_7b: the meta-built full-size model is the published LLaVA-1.5-7B and case.yaml's,
each FlagPerf stage trains what its script trains, the FLOPs formula's parts, FlagPerf's
json + image-folder layout read with LLaVA's prompts and label masks (and refused when wrong:
a missing image named by its path), and the shipped configs plan; llava1.5_7b_continuetrain
builds the same model and its case.yaml and configs hold."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import yaml
from casemodules import BENCHMARKS, load_case_module
from llmplan import shipped_config_problems

CASE = "llava1.5_7b"
CONTINUED = "llava1.5_7b_continuetrain"   # continues from CASE's checkpoint
LARGER = "llava1.5_13b"
# llava-hf/llava-1.5-7b-hf: transformers' LlavaForConditionalGeneration from its config.json
# counts 7,063,427,072 parameters (the Hub's safetensors total, "7.06B"); its parts: CLIP
# ViT-L/14-336's vision model 303,507,456, the projector 1024*4096 + 4096 + 4096*4096 + 4096 =
# 20,979,712, Vicuna-7B (Llama-2-7B's 6,738,415,616 with 64 more vocabulary rows in the
# embedding and lm_head) 6,738,939,904
PUBLISHED = {"total": 7_063_427_072, "vision": 303_507_456, "projector": 20_979_712,
             "llm": 6_738_939_904}


def module() -> Any:
    return load_case_module(f"{CASE}/pytorch", "run_pretraining", "llava_case")


def counts(model: Any) -> dict[str, int]:
    params = list(model.parameters())
    return {"trainable": sum(p.numel() for p in params if p.requires_grad),
            "total": sum(p.numel() for p in params)}


@pytest.mark.parametrize("stage", ["pretrain", "finetune"])
def test_the_full_size_is_llava_1_5_7b_and_each_stage_trains_flagperf_s_parts(stage: str) -> None:
    from chipperf_runtime.training.llmtrain import arch, llava_arch
    from chipperf_runtime.training.llmtrain.llava import build_meta

    values = module().PRESETS["7b"]
    model = build_meta(values, stage)
    trainable = PUBLISHED["projector"] + (PUBLISHED["llm"] if stage == "finetune" else 0)
    assert counts(model) == {"trainable": trainable, "total": PUBLISHED["total"]}
    assert llava_arch.parameter_counts(values["vision"], values["text"], stage) == counts(model)
    assert llava_arch.vision_params(values["vision"]) == PUBLISHED["vision"] == \
        sum(p.numel() for p in model.model.vision_tower.parameters())
    assert arch.parameter_count(values["text"]) == PUBLISHED["llm"]
    assert not any(p.requires_grad for p in model.model.vision_tower.parameters())


def test_case_yaml_holds_the_full_size_and_the_finetune_flops_of_a_2048_position_sample() -> None:
    from chipperf_runtime.training.llmtrain import llava_arch
    from chipperf_runtime.training.llmtrain.llava import build_meta

    presets = module().PRESETS
    meta = yaml.safe_load((BENCHMARKS / CASE / "pytorch" / "case.yaml").read_text())
    vision, text = presets["7b"]["vision"], presets["7b"]["text"]
    assert meta["full_size"] == {
        "params": PUBLISHED["total"],
        "flops_per_unit": llava_arch.flops_per_token(vision, text, [(2048, 1)], "finetune")}
    assert meta["memory"]["params"] == {s: counts(build_meta(v, "finetune"))["total"]
                                        for s, v in presets.items()}


def test_the_flops_count_the_tower_forward_only_and_a_frozen_llm_at_4n() -> None:
    """Tower: 2 x its matmul weights x 577 tokens + its attention, forward only, all 24
    layers; projector 4 (first linear: no input gradient) and 6 per weight on 576 patches;
    LLM 4N (pretrain: frozen, the input gradient carried to the image positions) or 6N."""
    from chipperf_runtime.training.llmtrain import arch, llava_arch

    values = module().PRESETS["7b"]
    vision, text = values["vision"], values["text"]
    tower = 24 * (4 * 1024 * 1024 + 2 * 1024 * 4096)
    assert llava_arch.vision_matmul_params(vision) == tower == 301_989_888
    assert llava_arch.vision_forward_flops(vision) == \
        2 * 3 * 14 * 14 * 1024 * 576 + 2 * tower * 577 + 4 * 24 * 1024 * 577 ** 2
    assert llava_arch.projector_train_flops(vision, text) == \
        576 * (4 * 1024 * 4096 + 6 * 4096 * 4096)
    n = arch.matmul_params(text)
    attention = 12 * 32 * 4096 * 2048
    for stage, per_weight in (("pretrain", 4), ("finetune", 6)):
        image = llava_arch.vision_forward_flops(vision) + \
            llava_arch.projector_train_flops(vision, text)
        assert llava_arch.sample_train_flops(vision, text, 2048, 1, stage) == \
            image + 2048 * (per_weight * n + attention)
        # a text-only sample (mix665k has some) runs no tower and no projector
        assert llava_arch.sample_train_flops(vision, text, 2048, 0, stage) == \
            2048 * (per_weight * n + attention)


def tokens_of(size: str = "tiny", seq_len: int = 64) -> Any:
    from chipperf_runtime.training.llmtrain import llava_arch
    from chipperf_runtime.training.llmtrain.llava_data import Tokens

    values = module().PRESETS[size]
    return Tokens(seq_len, llava_arch.patches(values["vision"]), values["image_token_id"])


def text_of(ids: np.ndarray) -> str:
    from chipperf_runtime.training.textlm import bytelevel

    return bytes(int(t) - bytelevel.BYTE_OFFSET for t in ids
                 if t >= bytelevel.BYTE_OFFSET and t < 259).decode()


def test_flagperf_s_layout_is_read_with_llava_s_plain_and_v1_prompts(tmp_path: Path) -> None:
    from chipperf_runtime.training.llmtrain import llava_data
    from chipperf_runtime.training.textlm import bytelevel

    llava_data.write_generated(tmp_path, 12, seed=3, image_size=28)
    records = json.loads((tmp_path / "LLaVA-Finetune" / "llava_v1_5_mix665k.json").read_text())
    plain = llava_data.open_llava(tmp_path, "pretrain", "plain", tokens_of(), 2, "prepare")
    assert (len(plain.train), len(plain.eval)) == (10, 2)
    sample, encoded = plain.train[0], plain.train[0].encoded()
    assert sample.image is not None and sample.image.is_file()
    assert sample.image.parent.parent.name == "images" and sample.positions == len(encoded.ids)
    assert list(encoded.ids[:5]) == [bytelevel.BOS] + [259] * 4     # <s> then 4 image tokens
    caption = json.loads((tmp_path / "LLaVA-Pretrain" / "blip_laion_cc_sbu_558k.json")
                         .read_text())[0]["conversations"][1]["value"]
    assert text_of(encoded.labels[encoded.labels >= 0]) == caption + "\n"   # the caption alone

    v1 = llava_data.open_llava(tmp_path, "finetune", "v1", tokens_of(seq_len=512), 2, "prepare")
    encoded = v1.train[0].encoded()
    assert text_of(encoded.ids).startswith(llava_data.SYSTEM + " USER: \nDescribe")
    supervised = encoded.labels[encoded.labels >= 0]
    answers = [t["value"] for t in records[0]["conversations"][1::2]]
    assert text_of(supervised) == "".join(answers)                  # the answers only ...
    assert list(supervised).count(bytelevel.EOS) == 2                # ... each with its </s>
    assert (encoded.ids == 259).sum() == 4


def test_a_batch_pads_masks_and_normalises_the_pictures(tmp_path: Path) -> None:
    from chipperf_runtime.training.llmtrain import llava_data

    llava_data.write_generated(tmp_path, 6, seed=3, image_size=40, stages=["finetune"])
    data = llava_data.open_llava(tmp_path, "finetune", "v1", tokens_of(seq_len=512), 2, "p")
    batch = llava_data.collate(data.train[:3], 260, 28, pad=True)
    longest = max(s.positions for s in data.train[:3])
    assert batch.input_ids.shape == batch.labels.shape == (3, longest)
    assert batch.pixel_values is not None and batch.pixel_values.shape == (3, 3, 28, 28)
    assert batch.positions() == sum(s.positions for s in data.train[:3])
    assert batch.targets() == sum(int((s.encoded().labels[1:] >= 0).sum()) for s in data.train[:3])
    grey = (np.array([128, 128, 128]) / 255.0 - llava_data.MEAN) / llava_data.STD
    corner = batch.pixel_values[0][:, :, :]
    assert np.isclose(corner, grey[:, None, None], atol=0.05).all(axis=0).sum() > 100


def test_a_missing_image_and_a_bad_record_are_named_with_their_paths(tmp_path: Path) -> None:
    from chipperf_runtime.training.driver import DataError
    from chipperf_runtime.training.llmtrain import llava_data

    llava_data.write_generated(tmp_path, 8, seed=3, image_size=28, stages=["pretrain"])
    path = tmp_path / "LLaVA-Pretrain" / "blip_laion_cc_sbu_558k.json"
    records = json.loads(path.read_text())
    missing = tmp_path / "LLaVA-Pretrain" / "images" / records[2]["image"]
    missing.unlink()
    records[4]["conversations"] = [{"from": "human", "value": "hi"}]
    path.write_text(json.dumps(records))
    with pytest.raises(DataError) as err:
        llava_data.open_llava(tmp_path, "pretrain", "plain", tokens_of(), 2, "prepare_data.py")
    text = str(err.value)
    assert f"{path}: sample 2: image file {missing} is missing" in text
    assert f"{path}: sample 4: \"conversations\" must be a list of two or more" in text
    with pytest.raises(DataError) as err:
        llava_data.open_llava(tmp_path, "finetune", "v1", tokens_of(), 2, "prepare_data.py")
    assert "llava_v1_5_mix665k.json is missing" in str(err.value) and "LLaVA-Finetune/data/" \
        in str(err.value)


def test_a_sequence_too_short_for_the_image_tokens_is_refused(tmp_path: Path) -> None:
    from chipperf_runtime.training.driver import DataError
    from chipperf_runtime.training.llmtrain import llava_data

    llava_data.write_generated(tmp_path, 4, seed=3, image_size=28, stages=["finetune"])
    with pytest.raises(DataError, match="its image tokens do not fit in seq_len 100"):
        llava_data.open_llava(tmp_path, "finetune", "v1", tokens_of(seq_len=100), 1, "p")


def test_every_shipped_config_plans() -> None:
    found = shipped_config_problems([CASE])
    assert {k: v for k, v in found.items() if v} == {}
    assert sorted(found) == [f"{v}/{CASE}/config_{c}.py" for v, c in (
        ("cpu", "xeonx1x1"), ("cpu", "xeonx1x2"), ("cpu", "xeonx2x1"), ("nvidia", "A100x1x8"),
        ("nvidia", "A100x2x8"), ("nvidia", "A800x1x8"), ("nvidia", "H100x1x8"),
        ("nvidia", "H100x2x8"), ("nvidia", "H100x4x8"))]


def test_the_continue_case_builds_llava1_5_7b_and_counts_the_pretrain_stage_s_flops() -> None:
    """llava1.5_7b_continuetrain loads llava1.5_7b's checkpoint: the same presets (one module),
    its case.yaml the full size, the pretrain stage's FLOPs of a 2048-position sample and its
    training state: fp32 weights + 12 bytes for each projector parameter, 4.04 per parameter."""
    from chipperf_runtime.training.llmtrain import llava_arch

    continued = load_case_module(f"{CONTINUED}/pytorch", "run_pretraining", "llava_continue_case")
    assert continued.SPEC.presets == module().PRESETS
    meta = yaml.safe_load((BENCHMARKS / CONTINUED / "pytorch" / "case.yaml").read_text())
    writer = yaml.safe_load((BENCHMARKS / CASE / "pytorch" / "case.yaml").read_text())
    vision, text = module().PRESETS["7b"]["vision"], module().PRESETS["7b"]["text"]
    assert meta["full_size"] == {
        "params": PUBLISHED["total"],
        "flops_per_unit": llava_arch.flops_per_token(vision, text, [(2048, 1)], "pretrain")}
    assert meta["memory"]["params"] == writer["memory"]["params"]
    state = (PUBLISHED["total"] * 4 + PUBLISHED["projector"] * 12) / PUBLISHED["total"]
    assert meta["memory"]["bytes_per_param"]["pretrain"] == round(state, 2)


def test_every_shipped_config_of_the_continue_case_plans() -> None:
    found = shipped_config_problems([CONTINUED])
    assert {k: v for k, v in found.items() if v} == {}
    assert sorted(found) == [f"{v}/{CONTINUED}/config_{c}.py" for v, c in (
        ("cpu", "xeonx1x1"), ("cpu", "xeonx1x2"), ("nvidia", "A100x1x8"), ("nvidia", "A100x2x8"),
        ("nvidia", "H100x1x8"), ("nvidia", "H100x2x8"), ("nvidia", "H100x4x8"))]


@pytest.mark.parametrize("stage", ["pretrain", "finetune"])
def test_one_backward_reaches_exactly_the_parts_the_stage_trains(tmp_path: Path, stage: str) -> None:
    """The tiny model on the CPU, one micro-step of the case's loop: gradients on the
    projector (and, in finetune, the LLM and lm_head), none on the vision tower; the loss is
    finite and averages over the captions' tokens only."""
    from chipperf_runtime.device.torch import open_torch_device
    from chipperf_runtime.training.driver import Config
    from chipperf_runtime.training.llmtrain import llava_data
    from chipperf_runtime.training.llmtrain.llava import build_loop, build_model
    from chipperf_runtime.training.llmtrain.parallel import Layout

    values = module().PRESETS["tiny"]
    llava_data.write_generated(tmp_path, 6, seed=3, image_size=28, stages=["pretrain"])
    data = llava_data.open_llava(tmp_path, "pretrain", "plain", tokens_of(), 2, "p")
    knobs = {"stage": stage, "activation_checkpointing": False, "dtype": "fp32", "seed": 1,
             "reshard_after_forward": False, "learning_rate": 1e-3, "weight_decay": 0.0,
             "adam_beta1": 0.9, "adam_beta2": 0.999, "adam_eps": 1e-8, "warmup_steps": 0,
             "max_steps": 10, "min_lr_ratio": 0.1, "global_batch_size": 4,
             "micro_batch_size": 2, "eval_samples": 2, "grad_clip_norm": 1.0}
    cfg = Config(knobs, {k: "base" for k in knobs})
    device = open_torch_device(0, {"CHIPPERF_DEVICE": "cpu"})
    model = build_model(cfg, values, Layout(1), device, None)
    loop = build_loop(cfg, values, model, None, Layout(1), data, device.device)
    batch = next(iter(loop.batches(1)))
    loss, stepped = loop.step(batch)
    assert not stepped and np.isfinite(float(loss))
    assert 0 < batch.targets() < batch.positions()       # the captions, not the image or <s>
    graded = {name.split(".")[1] if name.startswith("model.") else name.split(".")[0]
              for name, p in model.named_parameters() if p.grad is not None}
    expected = {"multi_modal_projector"} | ({"language_model", "lm_head"}
                                            if stage == "finetune" else set())
    assert graded == expected
    assert all(p.grad is not None for p in model.model.multi_modal_projector.parameters())


def test_finetune_starts_from_the_pretrained_projector_and_the_seed_s_other_weights() -> None:
    """Stage "both": the finetune model is the seed's weights (the LLM and the tower were
    frozen in pretrain, so they are what pretrain left) with pretrain's projector."""
    import torch

    from chipperf_runtime.device.torch import open_torch_device
    from chipperf_runtime.training.driver import Config
    from chipperf_runtime.training.llmtrain.llava import build_model, load_projector, projector_weights
    from chipperf_runtime.training.llmtrain.parallel import Layout

    values, device = module().PRESETS["tiny"], open_torch_device(0, {"CHIPPERF_DEVICE": "cpu"})
    knobs = {"activation_checkpointing": False, "dtype": "fp32", "seed": 1,
             "reshard_after_forward": False}
    pretrain, finetune = (build_model(Config({**knobs, "stage": s}, {k: "base" for k in knobs}),
                                      values, Layout(1), device, None)
                          for s in ("pretrain", "finetune"))
    with torch.no_grad():
        for p in pretrain.model.multi_modal_projector.parameters():
            p.add_(1.0)                                   # what pretraining changed
    load_projector(finetune, projector_weights(pretrain))
    theirs = dict(pretrain.named_parameters())
    assert all(torch.equal(p, theirs[n]) for n, p in finetune.named_parameters())
    assert {n for n, p in finetune.named_parameters() if p.requires_grad} > \
        {n for n, p in pretrain.named_parameters() if p.requires_grad}


def case_config(**overrides: Any) -> Any:
    from chipperf_runtime.training.driver import load_case_config

    return load_case_config(BENCHMARKS / "llava1.5_7b/pytorch/config", None, overrides)


def test_an_unknown_stage_and_a_bad_recipe_are_named_with_what_is_allowed() -> None:
    from chipperf_runtime.training.driver import DistEnv
    from chipperf_runtime.training.llmtrain.llava import LlavaSpec, config_problems, stage_config

    spec, dist = LlavaSpec(module().PRESETS, "p"), DistEnv.from_env({})
    assert config_problems(case_config(), spec, dist) == []
    (problem,) = config_problems(case_config(stage="pre"), spec, dist)
    assert problem.startswith("stage 'pre' is unknown: use one of pretrain, finetune, both")
    (problem,) = config_problems(case_config(pretrain_recipe={"lr": 1e-3}), spec, dist)
    assert problem.startswith("pretrain_recipe sets 'lr': a stage's recipe may set only "
                              "global_batch_size, micro_batch_size, learning_rate")
    (problem,) = config_problems(case_config(pretrain_recipe={"max_steps": 0}), spec, dist)
    assert "max_steps" in problem
    # "both": pretrain takes the recipe's knobs, finetune the config's; one stage: the config's
    cfg = case_config()
    assert (stage_config(cfg, "pretrain").global_batch_size, stage_config(cfg, "pretrain").stage,
            stage_config(cfg, "finetune").learning_rate) == (256, "pretrain", 2e-5)
    one = case_config(stage="pretrain")
    assert stage_config(one, "pretrain") is one


# transformers' LlavaForConditionalGeneration of llava-hf/llava-1.5-13b-hf's config ("13.4B"):
# the same vision tower, the projector 1024*5120 + 5120 + 5120*5120 + 5120 = 31,467,520 and
# Vicuna-13B (Llama-2-13B's 13,015,864,320 with 64 more vocabulary rows in the embedding and
# lm_head: + 655,360) 13,016,519,680
PUBLISHED_13B = {"total": 13_351_494_656, "projector": 31_467_520, "llm": 13_016_519_680}


def test_llava1_5_13b_is_the_13b_model_and_its_case_yaml_holds_it() -> None:
    from chipperf_runtime.training.llmtrain import arch, llava_arch
    from chipperf_runtime.training.llmtrain.llava import build_meta

    larger = load_case_module(f"{LARGER}/pytorch", "run_pretraining", "llava_13b_case")
    values = larger.PRESETS["13b"]
    model = build_meta(values, "finetune")
    assert counts(model) == {"trainable": PUBLISHED_13B["projector"] + PUBLISHED_13B["llm"],
                             "total": PUBLISHED_13B["total"]}
    assert arch.parameter_count(values["text"]) == PUBLISHED_13B["llm"]
    assert llava_arch.vision_params(values["vision"]) == PUBLISHED["vision"]
    assert larger.PRESETS["tiny"] == module().PRESETS["tiny"]
    meta = yaml.safe_load((BENCHMARKS / LARGER / "pytorch" / "case.yaml").read_text())
    assert meta["full_size"] == {"params": PUBLISHED_13B["total"], "flops_per_unit":
                                 llava_arch.flops_per_token(values["vision"], values["text"],
                                                            [(2048, 1)], "finetune")}
    state = (PUBLISHED_13B["total"] * 4 + PUBLISHED_13B["projector"] * 12) / PUBLISHED_13B["total"]
    assert meta["memory"]["bytes_per_param"]["pretrain"] == round(state, 2)
    assert meta["memory"]["params"]["13b"] == PUBLISHED_13B["total"]


def test_every_shipped_config_of_llava1_5_13b_plans() -> None:
    found = shipped_config_problems([LARGER])
    assert {k: v for k, v in found.items() if v} == {}
    assert sorted(found) == [f"{v}/{LARGER}/config_{c}.py" for v, c in (
        ("cpu", "xeonx1x1"), ("nvidia", "A100x1x8"), ("nvidia", "A100x2x8"),
        ("nvidia", "H100x1x8"), ("nvidia", "H100x2x8"))]
