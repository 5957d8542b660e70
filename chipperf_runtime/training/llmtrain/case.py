"""The LLM cases' main, shared by llama3_8B and mixtral_8x7B (PyTorch, torchrun).

A case's ``run_pretraining.py`` hands ``main`` an ``LLMSpec``: transformers' model class, its
config class and the size presets. The rest is the same for both: the byte-level token
shards (``textlm.tokens``), the (data, tensor) mesh with TP/EP inside a node and FSDP2
across (``llmtrain.parallel``), AdamW with warmup-cosine, ``textlm.loop``'s schedule to an
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
from chipperf_runtime.training.driver import Config, DistEnv, Driver
from chipperf_runtime.training.driver.dist import rank_threads
from chipperf_runtime.training.driver.torchdist import all_reduce_sum, init_distributed
from chipperf_runtime.training.llmtrain import arch
from chipperf_runtime.training.llmtrain.experts import ParallelExperts
from chipperf_runtime.training.llmtrain.model import build_on_meta, materialize
from chipperf_runtime.training.llmtrain.parallel import Layout, apply_parallelism, layout_problems, make_mesh
from chipperf_runtime.training.llmtrain.train import Loop
from chipperf_runtime.training.textlm import tokens
from chipperf_runtime.training.textlm.checks import (
    count_problems,
    dtype_problems,
    raise_problems,
    size_problems,
)
from chipperf_runtime.training.textlm.loop import Goal, Schedule, run, warmup_cosine

DTYPES = {"fp32": torch.float32, "bf16": torch.bfloat16}
COUNTS = ("global_batch_size", "micro_batch_size", "max_steps", "eval_every_steps",
          "tensor_parallel")


@dataclass(frozen=True)
class LLMSpec:
    """What differs between the LLM cases."""

    model_class: Callable[..., nn.Module]        # transformers' *ForCausalLM
    config_class: Callable[..., Any]             # its config class
    presets: Mapping[str, Mapping[str, Any]]     # model_size -> config values
    prepare: str                                 # the case's prepare_data.py (for messages)
    moe: bool = False

    def config_values(self, size: str) -> dict[str, Any]:
        return dict(self.presets[size])


def model_config(cfg: Config, spec: LLMSpec, dist: DistEnv) -> tuple[dict[str, Any], Layout]:
    """The architecture and the layout; raises ConfigError with every problem."""
    problems = size_problems(cfg, spec.presets, "target_eval_loss")
    problems += dtype_problems(cfg, tuple(DTYPES)) + count_problems(cfg, COUNTS)
    layout = Layout(dist.world_size, max(1, cfg.tensor_parallel))
    if problems:
        raise_problems(problems)
    values = spec.config_values(cfg.model_size)
    if not 1 <= cfg.seq_len <= values["max_position_embeddings"]:
        problems.append(f"seq_len {cfg.seq_len} must be 1..{values['max_position_embeddings']} "
                        f"for model_size {cfg.model_size!r}")
    problems += layout_problems(layout, dist.nproc_per_node, values["num_attention_heads"],
                                values["num_key_value_heads"], arch.expert_width(values))
    raise_problems(problems)
    return values, layout


def build_model(cfg: Config, spec: LLMSpec, values: Mapping[str, Any], layout: Layout,
                device: TorchDevice) -> tuple[Any, Any]:
    """transformers' model on the meta device, parallelised, materialised on the device."""
    config = spec.config_class(**values, attn_implementation="sdpa", use_cache=False)
    model: Any = build_on_meta(spec.model_class, config)
    mesh = None
    if layout.world_size > 1:
        mesh = make_mesh(device.device.type, layout)
        apply_parallelism(model, mesh, layout, DTYPES[cfg.dtype], cfg.reshard_after_forward)
    materialize(model, device.device, cfg.seed, config.initializer_range)
    if cfg.activation_checkpointing:
        model.gradient_checkpointing_enable({"use_reentrant": False})
    model.train()
    return model, mesh


def optimizer(cfg: Config, model: nn.Module) -> tuple[torch.optim.Optimizer, Any]:
    """AdamW, no weight decay on the RMSNorm weights; linear warmup then cosine."""
    params = list(model.parameters())
    groups = [{"params": [p for p in params if p.ndim > 1], "weight_decay": cfg.weight_decay},
              {"params": [p for p in params if p.ndim <= 1], "weight_decay": 0.0}]
    opt = torch.optim.AdamW(groups, lr=cfg.learning_rate, betas=(cfg.adam_beta1, cfg.adam_beta2),
                            eps=cfg.adam_eps, foreach=False)
    schedule = warmup_cosine(cfg.warmup_steps, cfg.max_steps, cfg.min_lr_ratio)
    return opt, torch.optim.lr_scheduler.LambdaLR(opt, schedule)


def mesh_ranks(mesh: Any) -> tuple[int, int]:
    """(data-parallel rank, tensor-parallel rank) of this process."""
    if mesh is None:
        return 0, 0
    return mesh["dp"].get_local_rank(), mesh["tp"].get_local_rank()


def build_loop(cfg: Config, spec: LLMSpec, model: nn.Module, mesh: Any, layout: Layout,
               data: tokens.TokenDataset, device: torch.device) -> Loop:
    dp_rank, tp_rank = mesh_ranks(mesh)
    dp = layout.data_parallel
    opt, scheduler = optimizer(cfg, model)
    local = cfg.global_batch_size // dp
    return Loop(
        model=model, optimizer=opt, scheduler=scheduler, device=device,
        train_epoch=lambda epoch: tokens.train_micro_batches(
            data, cfg.global_batch_size, cfg.micro_batch_size, dp_rank, dp, cfg.seed, epoch),
        eval_set=tokens.eval_batches(data, cfg.micro_batch_size, dp_rank, dp, cfg.eval_samples),
        accumulation=local // cfg.micro_batch_size, grad_clip_norm=cfg.grad_clip_norm,
        counts_work=tp_rank == 0,
        aux_loss_coef=float(cfg.router_aux_loss_coef) if spec.moe else 0.0,
        own_shards=frozenset(id(p) for m in model.modules() if isinstance(m, ParallelExperts)
                             for p in m.parameters()))


def main(name: str, case_dir: Path, spec: LLMSpec, argv: list[str] | None = None) -> None:
    driver = Driver.start(name, case_dir, argv)
    cfg, dist = driver.config, driver.dist
    values, layout = model_config(cfg, spec, dist)
    data = tokens.open_dataset(driver.args.data_dir, cfg.seq_len, values["vocab_size"],
                               spec.prepare)
    tokens.check_batching(data, cfg.global_batch_size, cfg.micro_batch_size, layout.data_parallel)
    threads = rank_threads(dist, cfg.cpu_threads)
    torch.set_num_threads(threads)
    device = init_distributed(dist)
    driver.set_sync(device.synchronize)
    model, mesh = build_model(cfg, spec, values, layout, device)
    loop = build_loop(cfg, spec, model, mesh, layout, data, device.device)
    goal = Goal("eval_loss", float(cfg.target_eval_loss[cfg.model_size]), higher_is_better=False,
                details=lambda loss: {"perplexity": math.exp(min(loss, 50.0))})
    driver.init_end(**device.describe(), threads=threads, architecture=values,
                    parameters=arch.parameter_count(values), layout=layout.describe(),
                    train_samples=len(data.train), eval_samples=len(data.eval))
    progress = run(driver, loop, Schedule(goal, cfg.max_steps, cfg.eval_every_steps, "tokens"))
    work_done = int(all_reduce_sum([float(progress.work)], device.device)[0])
    driver.finish(work_done=work_done, work_unit="tokens", metric=goal.metric(progress.value),
                  flops_per_unit=arch.train_flops_per_token(values, cfg.seq_len), dtype=cfg.dtype,
                  peak_memory_bytes=device.max_memory_allocated())
    if tdist.is_initialized():
        tdist.destroy_process_group()
