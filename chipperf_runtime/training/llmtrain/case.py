"""The LLM cases' main, shared by llama3_8B and mixtral_8x7B (PyTorch, torchrun).

A case's ``run_pretraining.py`` hands ``main`` an ``LLMSpec``: transformers' model class, its
config class and the size presets. The rest is the same for both: the byte-level token
shards (``textlm.tokens``), the (pipeline, data, expert, tensor) mesh with TP inside a node,
EP over data-parallel ranks, FSDP2 across and pipeline stages (``llmtrain.parallel``,
``llmtrain.pipeline``), AdamW with warmup-cosine, ``textlm.loop``'s schedule to an
eval-loss target, and FINISHED with training FLOPs per token (``llmtrain.arch``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Mapping

import torch
import torch.distributed as tdist
from torch import nn

from chipperf_runtime.device.torch import TorchDevice
from chipperf_runtime.training.driver import Attention, Config, DistEnv, Driver
from chipperf_runtime.training.driver.dist import rank_threads
from chipperf_runtime.training.driver.torchdist import init_distributed
from chipperf_runtime.training.driver.torchknobs import (
    CompileSetting,
    compile_module,
    compile_setting,
    fused_optimizer,
)
from chipperf_runtime.training.llmtrain import arch, checkpoint, context, lora
from chipperf_runtime.training.llmtrain.context import context_shard
from chipperf_runtime.training.llmtrain.experts import ParallelExperts
from chipperf_runtime.training.llmtrain.implementation import KNOB, MEGATRON_CORE, NATIVE
from chipperf_runtime.training.llmtrain.model import build_on_meta, materialize, parameter_indices
from chipperf_runtime.training.llmtrain.nvidia import megatron
from chipperf_runtime.training.llmtrain.parallel import (
    Layout,
    apply_parallelism,
    layout_problems,
    make_mesh,
    mesh_rank,
    sequence_problems,
)
from chipperf_runtime.training.llmtrain.pipeline import Pipeline, make_pipeline, split_stages
from chipperf_runtime.training.llmtrain.train import Loop
from chipperf_runtime.training.textlm import tokens
from chipperf_runtime.training.textlm.checks import (
    count_problems,
    dtype_problems,
    raise_problems,
    size_problems,
)
from chipperf_runtime.training.textlm.finish import run_and_finish
from chipperf_runtime.training.textlm.loop import Goal, Trainer, warmup_cosine

DTYPES = {"fp32": torch.float32, "bf16": torch.bfloat16}
ATTENTION = "sdpa"    # transformers' attention through torch's scaled_dot_product_attention
COUNTS = ("global_batch_size", "micro_batch_size", "max_steps", "eval_every_steps",
          "tensor_parallel")
# the layout's knobs beside tensor_parallel, where the case has them (1 / "1f1b" where not)
DEGREES = ("pipeline_parallel", "expert_parallel", "context_parallel")


@dataclass(frozen=True)
class LLMSpec:
    """What differs between the LLM cases."""

    model_class: Callable[..., nn.Module]        # transformers' *ForCausalLM
    config_class: Callable[..., Any]             # its config class
    presets: Mapping[str, Mapping[str, Any]]     # model_size -> config values
    prepare: str                                 # the case's prepare_data.py (for messages)
    moe: bool = False
    lora: bool = False                           # LoRA fine-tuning: frozen base, peft adapters
    attention: str = ATTENTION                   # the config's attn_implementation
    # the meta-built model -> the case's computation (baichuan2_13b: ALiBi, NormHead)
    adapt: Callable[[Any], Any] | None = None
    no_tensor_parallel: str = ""                 # why tensor_parallel must be 1 ("": it may not)
    # (data_dir, seq_len, vocab_size, prepare) -> the token windows
    open_data: Callable[[Path, int, int, str], tokens.TokenDataset] = tokens.open_dataset

    def config_values(self, size: str) -> dict[str, Any]:
        return dict(self.presets[size])


def model_config(cfg: Config, spec: LLMSpec, dist: DistEnv) -> tuple[dict[str, Any], Layout]:
    """The architecture and the layout; raises ConfigError with every problem."""
    problems = size_problems(cfg, spec.presets, "target_eval_loss")
    problems += dtype_problems(cfg, tuple(DTYPES))
    problems += count_problems(cfg, COUNTS + tuple(d for d in DEGREES if d in cfg))
    if problems:
        raise_problems(problems)
    layout = layout_of(cfg, dist.world_size)
    values = spec.config_values(cfg.model_size)
    if not 1 <= cfg.seq_len <= values["max_position_embeddings"]:
        problems.append(f"seq_len {cfg.seq_len} must be 1..{values['max_position_embeddings']} "
                        f"for model_size {cfg.model_size!r}")
    problems += layout_problems(layout, dist.nproc_per_node, values)
    problems += sequence_problems(layout, cfg.seq_len, spec.attention)
    if spec.lora:
        problems += lora.lora_problems(cfg, values) + lora_layout_problems(layout)
    if spec.no_tensor_parallel and layout.tensor_parallel > 1:
        problems.append(f"tensor_parallel = {layout.tensor_parallel}: this case runs "
                        f"tensor_parallel 1 only ({spec.no_tensor_parallel})")
    if values.get("tie_word_embeddings") and dist.world_size > 1:
        problems.append(f"model_size {cfg.model_size!r} ties its lm_head to the input embedding, "
                        "which this case trains on one process only: run it on 1 process, or "
                        "use a size with an untied lm_head")
    raise_problems(problems)
    return values, layout


def lora_layout_problems(layout: Layout) -> list[str]:
    """LoRA runs data parallel (FSDP2) only: the TP plan and the pipeline split name the base
    layers, not peft's wrappers around them."""
    return [f"{name} = {degree}: a LoRA case runs data parallel only (set it to 1)"
            for name, degree in (("tensor_parallel", layout.tensor_parallel),
                                 ("pipeline_parallel", layout.pipeline_parallel)) if degree > 1]


def layout_of(cfg: Config, world_size: int) -> Layout:
    return Layout(world_size, cfg.tensor_parallel, cfg.get("pipeline_parallel", 1),
                  cfg.get("expert_parallel", 1), cfg.get("pipeline_schedule", "1f1b"),
                  cfg.get("context_parallel", 1), bool(cfg.get("sequence_parallel", False)))


def microbatch_problems(cfg: Config, layout: Layout) -> list[str]:
    """A pipeline needs enough micro-batches (the gradient accumulation) per step."""
    micro = cfg.global_batch_size // max(1, layout.data_parallel) // cfg.micro_batch_size
    if layout.pipeline_parallel > 1 and layout.stages_per_rank > 1 and \
            micro % layout.pipeline_parallel:
        return [f"pipeline_schedule {layout.pipeline_schedule!r} needs the micro-batches per "
                f"step ({micro}: global_batch_size / data parallel / micro_batch_size) to be a "
                f"multiple of pipeline_parallel {layout.pipeline_parallel}"]
    return []


def decoder_layers(model: Any) -> list[nn.Module]:
    """The decoder layers of a whole model (a ModuleList) or of a stage (a ModuleDict)."""
    layers = model.model.layers
    return list(layers.values()) if isinstance(layers, nn.ModuleDict) else list(layers)


def build_model(cfg: Config, spec: LLMSpec, values: Mapping[str, Any], layout: Layout,
                device: TorchDevice, setting: CompileSetting = CompileSetting(False)
                ) -> tuple[nn.Module, Any, Pipeline | None]:
    """transformers' model on the meta device (this rank's pipeline stages of it),
    parallelised, each decoder layer compiled (``setting``), materialised on the device;
    the pipeline schedule when there is one."""
    mesh = make_mesh(device.device.type, layout) if layout.world_size > 1 else None
    shard = context_shard(mesh, layout)
    attention = spec.attention if shard is None else context.register(shard)
    config = spec.config_class(**values, attn_implementation=attention, use_cache=False)
    full: Any = build_on_meta(spec.model_class, config)
    if spec.adapt is not None:
        full = spec.adapt(full)
    if cfg.activation_checkpointing:
        full.gradient_checkpointing_enable({"use_reentrant": False})
    if spec.lora:
        full = lora.add_lora(full, cfg)
    indices = parameter_indices(full)
    parts: list[Any] = split_stages(full, layout, mesh_rank(mesh, "pp"), shard) \
        if layout.pipeline_parallel > 1 else [full]
    for part in parts:
        if mesh is not None:
            apply_parallelism(part, decoder_layers(part), mesh, layout, DTYPES[cfg.dtype],
                              cfg.reshard_after_forward)
        for layer in decoder_layers(part):   # per layer, after FSDP2 (torchtitan's order)
            compile_module(layer, setting)
        materialize(part, device.device, cfg.seed, config.initializer_range, indices)
        if spec.lora:
            lora.init_adapters(part, cfg.seed, indices)
        part.train()
    if mesh is None or layout.pipeline_parallel == 1:
        return full, mesh, None
    micro = cfg.global_batch_size // layout.data_parallel // cfg.micro_batch_size
    pipeline = make_pipeline(parts, mesh, layout, micro, device.device, DTYPES[cfg.dtype])
    return nn.ModuleList(parts), mesh, pipeline


def optimizer(cfg: Config, model: nn.Module, fused: bool = False
              ) -> tuple[torch.optim.Optimizer, Any]:
    """AdamW over the trained parameters (LoRA: the adapters only), no weight decay on the
    RMSNorm weights; linear warmup then cosine. ``fused``: AdamW's fused kernels (one process
    on an accelerator); else the per-tensor loop, which takes the layout's DTensors whatever
    their meshes."""
    params = [p for p in model.parameters() if p.requires_grad]
    groups = [{"params": [p for p in params if p.ndim > 1], "weight_decay": cfg.weight_decay},
              {"params": [p for p in params if p.ndim <= 1], "weight_decay": 0.0}]
    kernels: dict[str, Any] = {"fused": True} if fused else {"foreach": False}
    opt = torch.optim.AdamW(groups, lr=cfg.learning_rate, betas=(cfg.adam_beta1, cfg.adam_beta2),
                            eps=cfg.adam_eps, **kernels)
    schedule = warmup_cosine(cfg.warmup_steps, cfg.max_steps, cfg.min_lr_ratio)
    return opt, torch.optim.lr_scheduler.LambdaLR(opt, schedule)


def build_loop(cfg: Config, spec: LLMSpec, model: nn.Module, mesh: Any, layout: Layout,
               data: tokens.TokenDataset, device: torch.device,
               pipeline: Pipeline | None = None, fused: bool = False) -> Loop:
    dp_rank, dp = mesh_rank(mesh, "dp"), layout.data_parallel
    opt, scheduler = optimizer(cfg, model, fused and mesh is None)
    local = cfg.global_batch_size // dp
    return Loop(
        model=model, optimizer=opt, scheduler=scheduler, device=device,
        train_epoch=lambda epoch: tokens.train_micro_batches(
            data, cfg.global_batch_size, cfg.micro_batch_size, dp_rank, dp, cfg.seed, epoch),
        eval_set=tokens.eval_batches(data, cfg.micro_batch_size, dp_rank, dp, cfg.eval_samples),
        accumulation=local // cfg.micro_batch_size, grad_clip_norm=cfg.grad_clip_norm,
        counts_work=all(mesh_rank(mesh, dim) == 0 for dim in ("tp", "pp", "cp")),
        aux_loss_coef=float(cfg.router_aux_loss_coef) if spec.moe else 0.0,
        own_shards=frozenset(id(p) for m in model.modules() if isinstance(m, ParallelExperts)
                             for p in m.parameters()),
        stage_world=layout.world_size // layout.pipeline_parallel, pipeline=pipeline,
        autocast=single_process_autocast(cfg, mesh), context=context_shard(mesh, layout))


def parameter_counts(cfg: Config, spec: LLMSpec, values: Mapping[str, Any]) -> dict[str, int]:
    """{"trainable", "total"} of the whole model (every stage), from ``llmtrain.arch``."""
    base = arch.parameter_count(values)
    if not spec.lora:
        return {"trainable": base, "total": base}
    adapters = arch.lora_params(values, cfg.lora_rank, cfg.lora_target_modules)
    return {"trainable": adapters, "total": base + adapters}


def flops_per_token(cfg: Config, spec: LLMSpec, values: Mapping[str, Any]) -> int:
    """Training FLOPs per token (``llmtrain.arch``: 6N + attention, or LoRA's 4N_frozen +
    6N_adapters + attention)."""
    if spec.lora:
        return arch.lora_train_flops_per_token(values, cfg.seq_len, cfg.lora_rank,
                                               cfg.lora_target_modules)
    return arch.train_flops_per_token(values, cfg.seq_len)


def attention_per_token(cfg: Config, values: Mapping[str, Any]) -> Attention:
    """The attention part of ``flops_per_token`` (``llmtrain.arch``, full or LoRA alike): every
    llmtrain model is a decoder-only LM, its attention causal."""
    return Attention(arch.attention_train_flops_per_token(values, cfg.seq_len), causal=True)


def single_process_autocast(cfg: Config, mesh: Any) -> torch.dtype | None:
    """The autocast dtype of a one-process run in a reduced dtype (with a mesh FSDP2's
    mixed-precision policy computes in ``dtype``)."""
    return DTYPES[cfg.dtype] if mesh is None and cfg.dtype != "fp32" else None


def main(name: str, case_dir: Path, spec: LLMSpec, argv: list[str] | None = None) -> None:
    driver = Driver.start(name, case_dir, argv)
    cfg, dist = driver.config, driver.dist
    values, layout = model_config(cfg, spec, dist)
    if cfg.get(KNOB, NATIVE) == MEGATRON_CORE:   # Megatron-Core's model, schedule, optimizer
        main_megatron(driver, spec, values, layout)
        return
    data = spec.open_data(driver.args.data_dir, cfg.seq_len, values["vocab_size"], spec.prepare)
    tokens.check_batching(data, cfg.global_batch_size, cfg.micro_batch_size, layout.data_parallel)
    raise_problems(microbatch_problems(cfg, layout))
    resume = checkpoint.continue_from(cfg, driver.args.data_dir)
    save_dir = checkpoint.save_to(cfg, driver.args.output_dir)
    threads = rank_threads(dist, cfg.cpu_threads)
    torch.set_num_threads(threads)
    device = init_distributed(dist)
    driver.set_sync(device.synchronize)
    setting = compile_setting(cfg, device)
    model, mesh, pipeline = build_model(cfg, spec, values, layout, device, setting)
    parts = list(model.children()) if pipeline is not None else [model]   # the stages
    raise_problems(checkpoint_problems(model, resume, save_dir))
    if resume is not None:
        checkpoint.load(parts, resume)
    fused = fused_optimizer(device) and mesh is None
    loop = build_loop(cfg, spec, model, mesh, layout, data, device.device, pipeline, fused)
    driver.executed(compile=setting.describe() + (" per decoder layer" if setting.enabled else ""),
                    attention=context.attention_name(spec.attention, layout), fused_optimizer=fused,
                    autocast=None if loop.autocast is None else cfg.dtype,
                    **({KNOB: cfg[KNOB]} if KNOB in cfg else {}))
    counts = parameter_counts(cfg, spec, values)
    facts = dict(threads=threads, architecture=values, layout=layout.describe(),
                 train_samples=len(data.train), eval_samples=len(data.eval))
    if resume is not None:     # where the continued training starts: the checkpoint's eval loss
        facts.update(checkpoint=str(resume), checkpoint_eval_loss=loop.evaluate())
    train_to_goal(driver, loop, device, eval_loss_goal(cfg.target_eval_loss[cfg.model_size]),
                  flops_per_token(cfg, spec, values), counts, facts,
                  attention=attention_per_token(cfg, values),
                  after=None if save_dir is None else lambda: checkpoint.save(parts, save_dir))


def main_megatron(driver: Driver, spec: LLMSpec, values: Mapping[str, Any],
                  layout: Layout) -> None:
    """The case on Megatron-Core (``llmtrain.nvidia.megatron``), to the same goal and FINISHED."""
    cfg = driver.config
    device, trainer, facts = megatron.prepare(driver, spec, values, layout)
    train_to_goal(driver, trainer, device, eval_loss_goal(cfg.target_eval_loss[cfg.model_size]),
                  flops_per_token(cfg, spec, values), parameter_counts(cfg, spec, values), facts,
                  attention=attention_per_token(cfg, values))


def checkpoint_problems(model: nn.Module, resume: Path | None, save_dir: Path | None
                        ) -> list[str]:
    """The built model's layout against the checkpoint it loads (``checkpoint``) or writes
    (``save_checkpoint``)."""
    asking = [knob for knob, path in (("checkpoint", resume), ("save_checkpoint", save_dir))
              if path is not None]
    return checkpoint.layout_problems(model, " and ".join(asking)) if asking else []


def eval_loss_goal(target: float) -> Goal:
    """The LLM cases' goal: an eval loss at or below ``target`` (its perplexity beside it)."""
    return Goal("eval_loss", float(target), higher_is_better=False,
                details=lambda loss: {"perplexity": math.exp(min(loss, 50.0))})


def train_to_goal(driver: Driver, loop: Trainer, device: TorchDevice, goal: Goal,
                  flops_per_unit: float, counts: Mapping[str, int], facts: dict[str, Any],
                  after: Callable[[], None] | None = None,
                  attention: Attention | None = None) -> None:
    """INIT_END (the device, ``facts`` and the parameter ``counts``), the loop until ``goal``
    or the run's length, FINISHED with every rank's tokens, ``after`` (every rank: writing the
    checkpoint); then the process group ends."""
    driver.init_end(**device.describe(), **facts, parameters=counts["total"],
                    trainable_parameters=counts["trainable"])
    run_and_finish(driver, loop, device, goal, "tokens", flops_per_unit, parameters=dict(counts),
                   attention=attention)
    if after is not None:
        after()
    if tdist.is_initialized():
        tdist.destroy_process_group()
