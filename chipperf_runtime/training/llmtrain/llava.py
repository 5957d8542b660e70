"""llava1.5_7b's main (PyTorch, torchrun): transformers' LlavaForConditionalGeneration (a
CLIP vision tower, the two-layer projector, a Llama decoder) trained in FlagPerf's two stages
on their conversation jsons + image folders (``llmtrain.llava_data``), FSDP2 data parallel
(FlagPerf: DeepSpeed ZeRO data parallel), to eval-loss targets.

Which parts train (``stage``): pretrain the projector, finetune the projector and the LLM;
the vision tower is frozen in both (FlagPerf's scripts). ``stage = "both"`` (FlagPerf's case)
runs pretrain, then finetune from the pretrained projector, in one process: each stage
measured on its own, FINISHED the two together (``driver.stages``). The loop, the optimizer, FSDP2 and the
clipping are the LLM cases' (``llmtrain.train``, ``llmtrain.case``, ``llmtrain.parallel``);
this module adds the model's build, its images and masked labels, and FLOPs
(``llmtrain.llava_arch``).

Checkpoints (``llmtrain.checkpoint``): ``save_checkpoint`` writes the whole model's weights
(tower, projector, LLM) after the last stage; ``checkpoint`` (llava1.5_7b_continuetrain) loads
them into the first stage's model before it trains.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

import numpy as np
import torch
import torch.distributed as tdist
import torch.nn.functional as F
from torch import nn
from torch.distributed.tensor import DTensor

from chipperf_runtime.device.torch import TorchDevice
from chipperf_runtime.training.driver import Config, ConfigError, DataError, DistEnv, Driver, split_batch
from chipperf_runtime.training.driver.dist import rank_threads
from chipperf_runtime.training.driver.stages import combine_stages
from chipperf_runtime.training.driver.torchdist import init_distributed
from chipperf_runtime.training.llmtrain import checkpoint, llava_arch
from chipperf_runtime.training.llmtrain.case import (
    DTYPES,
    eval_loss_goal,
    optimizer,
    single_process_autocast,
)
from chipperf_runtime.training.llmtrain.llava_data import (
    IGNORE,
    VERSIONS,
    Batch,
    LlavaData,
    Tokens,
    collate,
    open_llava,
    shape_of,
)
from chipperf_runtime.training.llmtrain.model import build_on_meta, parameter_indices, set_shard
from chipperf_runtime.training.llmtrain.parallel import Layout, apply_parallelism, make_mesh, mesh_rank
from chipperf_runtime.training.llmtrain.train import Loop, autocast
from chipperf_runtime.training.textlm.checks import (
    count_problems,
    dtype_problems,
    raise_problems,
    size_problems,
)
from chipperf_runtime.training.textlm.finish import run_and_measure
from chipperf_runtime.training.textlm.tokens import eval_indices, micro_batch_indices

COUNTS = ("global_batch_size", "micro_batch_size", "max_steps", "eval_every_steps")
# what a stage's recipe may replace (``pretrain_recipe``, stage "both")
RECIPE_KNOBS = ("global_batch_size", "micro_batch_size", "learning_rate", "warmup_steps",
                "max_steps", "eval_every_steps", "min_lr_ratio", "prompt_version")
TRAINED = {"pretrain": "multi_modal_projector",
           "finetune": "multi_modal_projector + language_model (and lm_head)"}


@dataclass(frozen=True)
class LlavaSpec:
    """A size preset is {"vision": CLIPVisionConfig values, "text": LlamaConfig values,
    "image_token_id", "pad_token_id", "projector_hidden_act"}."""

    presets: Mapping[str, Mapping[str, Any]]
    prepare: str                        # the case's prepare_data.py (for messages)


def config_problems(cfg: Config, spec: LlavaSpec, dist: DistEnv) -> list[str]:
    problems = size_problems(cfg, spec.presets, "target_eval_loss")
    problems += dtype_problems(cfg, tuple(DTYPES)) + count_problems(cfg, COUNTS)
    if cfg.stage not in llava_arch.RUNS:
        problems.append(f"stage {cfg.stage!r} is unknown: use one of "
                        f"{', '.join(llava_arch.RUNS)} (FlagPerf's two stages, or both one "
                        "after the other as FlagPerf's case runs them)")
    else:
        problems += recipe_problems(cfg)
    if not problems:
        for stage in llava_arch.RUNS[cfg.stage]:
            if stage not in cfg.target_eval_loss[cfg.model_size]:
                problems.append(f"target_eval_loss[{cfg.model_size!r}] has no target for "
                                f"stage {stage!r}")
            if stage != cfg.stage:
                problems += count_problems(stage_config(cfg, stage), COUNTS)
    if cfg.prompt_version not in ("",) + VERSIONS:
        problems.append(f"prompt_version {cfg.prompt_version!r} is unknown: use one of "
                        f"{', '.join(VERSIONS)}, or \"\" for the stage's")
    if cfg.tensor_parallel != 1:
        problems.append(f"tensor_parallel = {cfg.tensor_parallel}: LLaVA-1.5 runs data "
                        "parallel only (FlagPerf: DeepSpeed ZeRO data parallel); set it to 1")
    if not problems:
        limit = spec.presets[cfg.model_size]["text"]["max_position_embeddings"]
        if not 1 <= cfg.seq_len <= limit:
            problems.append(f"seq_len {cfg.seq_len} must be 1..{limit} for model_size "
                            f"{cfg.model_size!r}")
    return problems


def recipe_problems(cfg: Config) -> list[str]:
    """``pretrain_recipe`` (a case without it: none) may replace only ``RECIPE_KNOBS``."""
    unknown = sorted(set(cfg.get("pretrain_recipe") or {}) - set(RECIPE_KNOBS))
    return [f"pretrain_recipe sets {', '.join(map(repr, unknown))}: a stage's recipe may set "
            f"only {', '.join(RECIPE_KNOBS)}"] if unknown else []


def stage_config(cfg: Config, stage: str) -> Config:
    """The config one stage trains with: ``cfg`` itself for a single stage; in stage "both"
    the pretrain stage's knobs replaced by ``pretrain_recipe``'s (FlagPerf's pretrain.sh
    batch, lr and length), the finetune stage's as ``cfg`` sets them."""
    if cfg.stage != "both":
        return cfg
    recipe = dict(cfg.pretrain_recipe) if stage == "pretrain" else {}
    values = {**cfg, **recipe, "stage": stage}
    sources = {k: cfg.source(k) for k in cfg}
    sources.update({k: f"{cfg.source('pretrain_recipe')} (pretrain_recipe)" for k in recipe})
    return Config(values, sources, {k: cfg.default(k) for k in cfg})


def prompt_version(cfg: Config) -> str:
    """LLaVA's prompt: ``prompt_version``, or "" for the stage's (FlagPerf's scripts: plain
    for pretrain, v1 for finetune)."""
    return cfg.prompt_version or ("plain" if cfg.stage == "pretrain" else "v1")


def check_batching(cfg: Config, data: LlavaData, world_size: int) -> None:
    local = split_batch(cfg.global_batch_size, world_size)
    if local % cfg.micro_batch_size:
        raise ConfigError(f"global_batch_size {cfg.global_batch_size} gives {local} samples "
                          f"per rank, not a multiple of micro_batch_size {cfg.micro_batch_size}")
    if len(data.train) < cfg.global_batch_size:
        raise DataError(f"the train split has {len(data.train)} samples, fewer than one global "
                        f"batch of {cfg.global_batch_size}")
    if len(data.eval) < world_size:
        raise DataError(f"the eval split has {len(data.eval)} samples, fewer than the "
                        f"{world_size} ranks")


# ---------------------------------------------------------------- the model

def llava_config(values: Mapping[str, Any], attention: str = "sdpa") -> Any:
    from transformers import CLIPVisionConfig, LlamaConfig, LlavaConfig

    text = LlamaConfig(**values["text"], pad_token_id=values["pad_token_id"], use_cache=False)
    return LlavaConfig(vision_config=CLIPVisionConfig(**values["vision"]), text_config=text,
                       image_token_index=values["image_token_id"],
                       image_seq_length=llava_arch.patches(values["vision"]),
                       vision_feature_layer=-2, vision_feature_select_strategy="default",
                       projector_hidden_act=values["projector_hidden_act"],
                       tie_word_embeddings=False,
                       # PreTrainedConfig's keyword (it reaches both sub-configs), not in
                       # LlavaConfig's typed signature
                       attn_implementation=attention)  # type: ignore[call-arg]


def build_meta(values: Mapping[str, Any], stage: str) -> Any:
    """transformers' model on the meta device, frozen but for what ``stage`` trains."""
    from transformers import LlavaForConditionalGeneration

    model: Any = build_on_meta(LlavaForConditionalGeneration, llava_config(values))
    model.requires_grad_(False)
    model.model.multi_modal_projector.requires_grad_(True)
    if stage == "finetune":
        model.model.language_model.requires_grad_(True)
        model.lm_head.requires_grad_(True)
    return model


def blocks(model: Any) -> list[nn.Module]:
    """FSDP2's units below the root: every decoder layer and every vision encoder layer."""
    return list(model.model.language_model.layers) + \
        list(model.model.vision_tower.encoder.layers)


def build_model(cfg: Config, values: Mapping[str, Any], layout: Layout, device: TorchDevice,
                mesh: Any) -> nn.Module:
    """The stage's model (``cfg.stage``), FSDP2 over ``mesh`` (None: one process), its
    weights drawn from the seed (the same in every stage)."""
    model = build_meta(values, cfg.stage)
    if cfg.activation_checkpointing:
        model.gradient_checkpointing_enable({"use_reentrant": False})
    indices = parameter_indices(model)
    if mesh is not None:
        apply_parallelism(model, blocks(model), mesh, layout, DTYPES[cfg.dtype],
                          cfg.reshard_after_forward)
    materialize(model, device.device, cfg.seed, values["text"].get("initializer_range", 0.02),
                indices)
    model.train()
    return model


def projector_weights(model: Any) -> dict[str, torch.Tensor]:
    """The projector's trained weights, whole (gathered from their FSDP2 shards)."""
    return {name: (p.full_tensor() if isinstance(p, DTensor) else p).detach().clone()
            for name, p in model.model.multi_modal_projector.named_parameters()}


def load_projector(model: Any, weights: Mapping[str, torch.Tensor]) -> None:
    """Start ``model``'s projector from ``weights`` (the pretrain stage's, carried in memory
    where FlagPerf writes and reads mm_projector.bin)."""
    with torch.no_grad():
        for name, param in model.model.multi_modal_projector.named_parameters():
            set_shard(param, weights[name])


def materialize(model: Any, device: torch.device, seed: int, std: float,
                indices: dict[str, int]) -> None:
    """Allocate the (sharded) parameters on ``device`` and draw each one's full tensor from
    its own seeded generator (layout-independent, as ``llmtrain.model.materialize``):
    matrices and CLIP's class embedding normal(0, std), biases zero, norm weights one; then
    rebuild the buffers transformers computes at construction (positions, rotary)."""
    model.to_empty(device=device)
    with torch.no_grad():
        for name, param in model.named_parameters():
            set_shard(param, initial(name, tuple(param.shape), seed * 100_003 + indices[name],
                                     std, device, param.dtype))
        for module in model.modules():
            if isinstance(getattr(module, "position_ids", None), torch.Tensor):
                n = module.position_ids.shape[-1]
                module.position_ids.copy_(torch.arange(n, device=device).expand(1, -1))
    language = model.model.language_model
    language.rotary_emb = type(language.rotary_emb)(config=language.config).to(device)


def initial(name: str, shape: tuple[int, ...], seed: int, std: float, device: torch.device,
            dtype: torch.dtype) -> torch.Tensor:
    if len(shape) == 1 and name.endswith("bias"):
        return torch.zeros(shape, device=device, dtype=dtype)
    if len(shape) == 1 and not name.endswith("class_embedding"):
        return torch.ones(shape, device=device, dtype=dtype)
    generator = torch.Generator(device=device).manual_seed(seed)
    return torch.empty(shape, device=device, dtype=dtype).normal_(0.0, std, generator=generator)


# ---------------------------------------------------------------- the loop

@dataclass
class LlavaLoop(Loop):
    """``llmtrain.train.Loop`` over image-text batches: the loss is the cross entropy of the
    supervised positions only; the work is the LLM positions (text and image tokens)."""

    def loss(self, batch: Batch) -> tuple[torch.Tensor, torch.Tensor]:
        inputs = {k: torch.from_numpy(v).to(self.device) for k, v in
                  (("input_ids", batch.input_ids), ("attention_mask", batch.attention_mask),
                   ("pixel_values", batch.pixel_values)) if v is not None}
        labels = torch.from_numpy(batch.labels).to(self.device)[:, 1:]
        with autocast(self):
            logits = self.model(**inputs).logits[:, :-1]
        ce = F.cross_entropy(logits.reshape(-1, logits.shape[-1]).float(), labels.reshape(-1),
                             ignore_index=IGNORE, reduction="sum") / max(1, batch.targets())
        return ce, ce

    def targets(self, batch: Batch) -> int:
        return batch.targets()

    def work(self, batch: Batch) -> int:
        return batch.positions()


def build_loop(cfg: Config, values: Mapping[str, Any], model: nn.Module, mesh: Any,
               layout: Layout, data: LlavaData, device: torch.device) -> LlavaLoop:
    rank, world = mesh_rank(mesh, "dp"), layout.data_parallel
    size, pad = int(values["vision"]["image_size"]), cfg.stage == "finetune"

    def batch(samples: list[Any], indices: np.ndarray) -> Batch:
        return collate([samples[i] for i in indices], values["pad_token_id"], size, pad)

    def train_epoch(epoch: int) -> Any:
        for indices in micro_batch_indices(len(data.train), cfg.global_batch_size,
                                           cfg.micro_batch_size, rank, world, cfg.seed, epoch):
            yield batch(data.train, indices)

    opt, scheduler = optimizer(cfg, model)
    return LlavaLoop(
        model=model, optimizer=opt, scheduler=scheduler, device=device, train_epoch=train_epoch,
        eval_set=[batch(data.eval, i) for i in eval_indices(
            len(data.eval), cfg.micro_batch_size, rank, world, cfg.eval_samples)],
        accumulation=cfg.global_batch_size // world // cfg.micro_batch_size,
        grad_clip_norm=cfg.grad_clip_norm, counts_work=True,
        stage_world=layout.world_size, autocast=single_process_autocast(cfg, mesh))


# ---------------------------------------------------------------- main

def main(name: str, case_dir: Path, spec: LlavaSpec, argv: list[str] | None = None) -> None:
    driver = Driver.start(name, case_dir, argv)
    cfg, dist = driver.config, driver.dist
    raise_problems(config_problems(cfg, spec, dist))
    values = spec.presets[cfg.model_size]
    tokens = Tokens(cfg.seq_len, llava_arch.patches(values["vision"]), values["image_token_id"])
    stages = [stage_config(cfg, stage) for stage in llava_arch.RUNS[cfg.stage]]
    datas = [open_llava(driver.args.data_dir, s.stage, prompt_version(s), tokens,
                        cfg.eval_samples, spec.prepare) for s in stages]
    for stage_cfg, data in zip(stages, datas):    # every stage's data checked before training
        check_batching(stage_cfg, data, dist.world_size)
    resume = checkpoint.continue_from(cfg, driver.args.data_dir)
    save_dir = checkpoint.save_to(cfg, driver.args.output_dir)
    threads = rank_threads(dist, cfg.cpu_threads)
    torch.set_num_threads(threads)
    device = init_distributed(dist)
    driver.set_sync(device.synchronize)
    layout = Layout(dist.world_size)
    mesh = make_mesh(device.device.type, layout) if layout.world_size > 1 else None
    facts = dict(threads=threads, stage=cfg.stage, layout=layout.describe(),
                 train_samples=sum(len(d.train) for d in datas),
                 eval_samples=sum(len(d.eval) for d in datas))
    counts = [llava_arch.parameter_counts(values["vision"], values["text"], s.stage)
              for s in stages]
    driver.init_end(**device.describe(), **facts, parameters=counts[-1]["total"],
                    trainable_parameters=max(c["trainable"] for c in counts))
    finished: dict[str, dict[str, Any]] = {}
    handover = Handover()
    for index, (stage_cfg, data) in enumerate(zip(stages, datas)):
        if index:                                     # its own windows and peak memory
            driver.next_stage()
            device.reset_peak_memory()
        last = index + 1 == len(stages)
        handover = Handover(projector=handover.projector, resume=None if index else resume,
                            carry=not last,
                            save_dir=save_dir if last else None)
        finished[stage_cfg.stage], handover = train_stage(
            driver, stage_cfg, values, layout, device, mesh, data, handover)
    driver.emit_finished(finished[cfg.stage] if cfg.stage in finished else both(finished))
    if tdist.is_initialized():
        tdist.destroy_process_group()


@dataclass(frozen=True)
class Handover:
    """What a stage starts from besides the seed, and what it leaves."""

    resume: Path | None = None          # a checkpoint: every weight loaded from it (first stage)
    projector: Mapping[str, torch.Tensor] | None = field(default=None, repr=False)
    carry: bool = False                 # a stage follows: hand the projector's weights on
    save_dir: Path | None = None        # write the whole model's weights here (last stage)


def train_stage(driver: Driver, cfg: Config, values: Mapping[str, Any], layout: Layout,
                device: TorchDevice, mesh: Any, data: LlavaData, start: Handover
                ) -> tuple[dict[str, Any], Handover]:
    """One stage (``cfg.stage``) from the seed's weights (``start``: the checkpoint's, or the
    projector of the pretrain stage that ran before) to its target or its length: its
    FINISHED value, not emitted, and what it hands on (its projector's weights, when a stage
    follows); its weights are written to ``start.save_dir`` after it."""
    model = build_model(cfg, values, layout, device, mesh)
    if start.resume is not None:
        checkpoint.load([model], start.resume)
    if start.projector is not None:
        load_projector(model, start.projector)
    loop = build_loop(cfg, values, model, mesh, layout, data, device.device)
    driver.executed(attention="sdpa", stage=cfg.stage, prompt_version=prompt_version(cfg),
                    trained=TRAINED[cfg.stage],
                    frozen="vision_tower" + ("" if cfg.stage == "finetune" else
                                             " + language_model (and lm_head)"),
                    autocast=None if loop.autocast is None else cfg.dtype,
                    **resumed_from(loop, start.resume))
    value = run_and_measure(
        driver, loop, device, eval_loss_goal(cfg.target_eval_loss[cfg.model_size][cfg.stage]),
        "tokens", llava_arch.flops_per_token(values["vision"], values["text"],
                                             shape_of(data.train), cfg.stage),
        cfg, parameters=llava_arch.parameter_counts(values["vision"], values["text"], cfg.stage))
    if start.save_dir is not None:
        checkpoint.save([model], start.save_dir)
    return value, Handover(projector=projector_weights(model) if start.carry else None)


def resumed_from(loop: LlavaLoop, resume: Path | None) -> dict[str, Any]:
    """Where a continued stage starts (FINISHED ``execution``): the checkpoint and its eval
    loss before the first step (outside the train window)."""
    if resume is None:
        return {}
    return {"checkpoint": str(resume), "checkpoint_eval_loss": loop.evaluate()}


def both(finished: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    """FINISHED of stage "both": the stages combined (``driver.stages``), its ``execution``
    saying what each stage trained."""
    value = combine_stages(finished)
    value["execution"] = {**value["execution"], "stage": "both",
                          "prompt_version": " then ".join(
                              str(v["execution"]["prompt_version"]) for v in finished.values()),
                          "trained": " then ".join(f"{s}: {TRAINED[s]}" for s in finished),
                          "frozen": " then ".join(f"{s}: {v['execution']['frozen']}"
                                                  for s, v in finished.items())}
    return value
