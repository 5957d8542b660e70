"""The text case's main, shared by every transformers language-model case.

A case's ``run_pretraining.py`` hands ``main`` a ``TextModel`` (the architecture, its presets,
its task); the rest, the data checks, DDP, AdamW with warmup and decay, the loop, FLOPs and
FINISHED, is the same for every model.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, Mapping

import torch
import torch.distributed as tdist
from torch import nn
from torch.nn.parallel import DistributedDataParallel

from chipperf_runtime.device.torch import TorchDevice
from chipperf_runtime.training.driver import Attention, Config, ConfigError, DistEnv, Driver
from chipperf_runtime.training.driver.adapter import Adapter
from chipperf_runtime.training.driver.dist import rank_threads
from chipperf_runtime.training.driver.torchdist import init_distributed
from chipperf_runtime.training.driver.torchknobs import (
    compile_for,
    compile_function,
    fused_optimizer,
)
from chipperf_runtime.training.hftext.models import (
    ForwardCount,
    TextModel,
    attention_of,
    forward_count,
    hf_config,
    hf_model,
)
from chipperf_runtime.training.hftext.optimum_habana import gaudi_path, refuse_off_gaudi
from chipperf_runtime.training.hftext.tasks import Task
from chipperf_runtime.training.hftext.train import Loop, ratio, token_loss
from chipperf_runtime.training.hftext.zero import (
    zero_engine,
    zero_problems,
    zero_record,
    zero_stage,
)
from chipperf_runtime.training.textlm.checks import (
    count_problems,
    dtype_problems,
    raise_problems,
    size_problems,
)
from chipperf_runtime.training.textlm.finish import run_and_finish
from chipperf_runtime.training.textlm.loop import Goal, linear_warmup_decay, warmup_cosine

DTYPES = ("fp32", "bf16", "fp16")
LR_DECAYS = ("linear", "cosine", "inverse_sqrt")


NO_ADAPTER = Adapter()   # a case run without a vendor adapter

def check_config(cfg: Config, model: TextModel) -> Mapping[str, Any]:
    """The preset of ``model_size``; every configuration problem in one ConfigError."""
    problems = size_problems(cfg, model.presets, model.target) + dtype_problems(cfg, DTYPES)
    problems += count_problems(cfg, ("global_batch_size", "max_steps", "eval_every_steps"))
    problems += zero_problems(cfg)
    multiple = cfg.get("make_vocab_size_divisible_by", 1)    # bert's own base has none
    if not isinstance(multiple, int) or multiple < 1:
        problems.append(f"make_vocab_size_divisible_by = {multiple!r} must be a whole number "
                        "of at least 1")
    if cfg.lr_decay not in LR_DECAYS:
        problems.append(f"lr_decay {cfg.lr_decay!r} is unknown: use one of {', '.join(LR_DECAYS)}")
    raise_problems(problems)
    return model.presets[cfg.model_size]


def padded_vocab(preset: Mapping[str, Any], cfg: Config) -> Mapping[str, Any]:
    """The preset the network is built from: ``vocab_size`` rounded up to a multiple of
    ``make_vocab_size_divisible_by`` (Megatron-LM's padding; the extra rows are never a
    label), or the preset itself."""
    multiple = int(cfg.get("make_vocab_size_divisible_by", 1))
    vocab = preset.get("vocab_size")
    if multiple <= 1 or not isinstance(vocab, int) or vocab % multiple == 0:
        return preset
    return {**preset, "vocab_size": -(-vocab // multiple) * multiple}


def configure_threads(cfg: Config, dist: DistEnv) -> int:
    threads = rank_threads(dist, cfg.cpu_threads)
    torch.set_num_threads(threads)
    return threads


def optimizer_for(model: nn.Module, cfg: Config, fused: bool) -> torch.optim.Optimizer:
    """AdamW; biases and norm weights (the 1-D parameters) get no weight decay."""
    params = [p for p in model.parameters() if p.requires_grad]
    groups = [{"params": [p for p in params if p.ndim > 1], "weight_decay": cfg.weight_decay},
              {"params": [p for p in params if p.ndim <= 1], "weight_decay": 0.0}]
    return torch.optim.AdamW(groups, lr=cfg.learning_rate, betas=(cfg.adam_beta1, cfg.adam_beta2),
                             eps=cfg.adam_eps, fused=fused or None)


def lr_factor(cfg: Config) -> Callable[[int], float]:
    """Linear warmup, then linear or cosine decay to ``min_lr_ratio`` at ``max_steps``, or
    fairseq's inverse square root (the rate x sqrt(warmup_steps / step) after the warmup)."""
    if cfg.lr_decay == "cosine":
        return warmup_cosine(cfg.warmup_steps, cfg.max_steps, cfg.min_lr_ratio)
    if cfg.lr_decay == "inverse_sqrt":
        warm = max(1, cfg.warmup_steps)
        return lambda step: (step + 1) / warm if step + 1 < warm else (warm / (step + 1)) ** 0.5
    linear, floor = linear_warmup_decay(cfg.warmup_steps, cfg.max_steps), cfg.min_lr_ratio

    def factor(step: int) -> float:
        return linear(step) if step < cfg.warmup_steps else floor + (1 - floor) * linear(step)
    return factor


def checkpoint_activations(net: nn.Module, cfg: Config) -> bool:
    """Recompute each block's activations in backward when the case's ``gradient_checkpointing``
    asks (a knob only some cases have: t5_3b); whether it is on."""
    if not cfg.get("gradient_checkpointing", False):
        return False
    net.gradient_checkpointing_enable({"use_reentrant": False})  # type: ignore[operator]
    return True


def build_loop(cfg: Config, dist: DistEnv, rank_device: TorchDevice, model: TextModel,
               net: nn.Module, data: Any, adapter: Adapter = NO_ADAPTER) -> Loop:
    device = rank_device.device
    # the vendor's trainer adapter's hooks (training.driver.adapter), each at its named point;
    # with ZeRO (hftext.zero) DeepSpeed's engine reduces the gradients instead of DDP
    zero = zero_stage(cfg) > 0
    if zero:
        refuse_under_zero(adapter)
    wrapped = adapter.step("model_to_ddp", lambda: DistributedDataParallel(net), net, cfg) \
        if dist.distributed and not zero else net
    optimizer = adapter.step("create_optimizer", lambda: optimizer_for(
        wrapped, cfg, fused=fused_optimizer(rank_device)), wrapped, cfg)
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lr_factor(cfg))
    engine = zero_engine(net, optimizer, scheduler, cfg, dist, rank_device) if zero else None
    task = model.task
    return Loop(model=wrapped if engine is None else engine, optimizer=optimizer,
                scheduler=scheduler, device=device,
                dtype=cfg.dtype, grad_clip_norm=float(cfg.grad_clip_norm), task=task,
                train_epoch=lambda epoch: task.train(data, cfg, dist, epoch),
                eval_set=task.eval(data, cfg, dist), scorer=task.scorer(data),
                score_width=getattr(task, "score_width", 2),
                combine=getattr(task, "combine", ratio),
                label_smoothing=float(cfg.get("label_smoothing", 0.0)), engine=engine,
                scaler=adapter.step("create_grad_scaler", lambda: grad_scaler(cfg, rank_device),
                                    cfg),
                backward=adapter.bound("backward"),
                update=adapter.bound("update_model_params"),
                whole_step=adapter.bound("train_one_step", cfg))


def grad_scaler(cfg: Config, rank_device: TorchDevice) -> Any:
    """fp16: torch.amp.GradScaler on the rank's device (on the host CPU too: fp16 gradients
    underflow wherever they are computed); fp32 and bf16: none."""
    return torch.amp.GradScaler(rank_device.autocast_type) if cfg.dtype == "fp16" else None


# hooks of steps DeepSpeed's ZeRO engine runs itself (hftext.zero): with zero_stage > 0 the
# loop has no point for them
ZERO_OWNS = ("model_to_ddp", "create_grad_scaler", "backward", "update_model_params",
             "train_one_step")


def refuse_under_zero(adapter: Adapter) -> None:
    """``ConfigError`` when the adapter replaces a step ZeRO's engine runs (it would not run)."""
    owned = [h for h in ZERO_OWNS if adapter.has(h)]
    if owned:
        raise ConfigError(f"{adapter.path}: defines {', '.join(owned)}, which DeepSpeed's ZeRO "
                          "engine runs itself when zero_stage > 0 (they would not run): set "
                          "zero_stage = 0 for the vendor's steps, or remove them")


def main(model_name: str, case_dir: Path, model: TextModel,
         argv: list[str] | None = None) -> None:
    driver = Driver.start(model_name, case_dir, argv)
    cfg, dist = driver.config, driver.dist
    preset = check_config(cfg, model)
    task = model.task
    data = task.open(driver.args.data_dir, hf_config(model.arch, preset), cfg, model.prepare)
    preset = getattr(task, "fit_preset", lambda chosen, _: chosen)(preset, data)   # e.g. vocabulary
    task.check(data, cfg, dist)
    threads = configure_threads(cfg, dist)
    device = init_distributed(dist)
    driver.set_sync(device.synchronize)
    torch.manual_seed(cfg.seed)
    built = padded_vocab(preset, cfg)
    net = hf_model(model.arch, built).to(device.device)
    weights = task.initialise(net, data, cfg)
    net = driver.adapter.prepared(net, cfg)        # convert_model, model_to_fp16
    if checkpoint_activations(net, cfg):
        driver.executed(gradient_checkpointing=True)
    seq_len = task.seq_len(data, cfg)
    counted = forward_count(model, preset, seq_len)       # the real vocabulary's
    forward = counted.total
    setting = compile_for(driver, [net], device)
    driver.executed(attention=attention_of(net), fused_optimizer=fused_optimizer(device))
    gaudi = gaudi_path(cfg) if device.device.type == "hpu" else None   # intel_gaudi: Optimum Habana
    if gaudi is None:
        refuse_off_gaudi(cfg, device.device.type)
    if gaudi is not None:
        gaudi.prepare(net)               # training HPU graphs before DDP wraps the model
    loop = build_loop(cfg, dist, device, model, net, data, driver.adapter)
    if gaudi is not None:
        gaudi.attach(loop, net)          # lazy-mode graph breaks, the evaluation's HPU graphs
        driver.executed(**gaudi.facts)
    if loop.engine is not None:
        driver.executed(zero_stage=zero_stage(cfg), deepspeed=zero_record(loop.engine))
    driver.executed(optimizer=type(loop.optimizer).__name__)
    if loop.scaler is not None:      # fp16's loss scaler (the loop's GradScaler or the vendor's)
        driver.executed(grad_scaler=type(loop.scaler).__name__)
    if setting.enabled:     # the fp32 cast and softmax of the logits fused, not materialised
        loop.loss = compile_function(token_loss, setting)
        driver.executed(loss=f"cross entropy, {setting.describe()}")
    goal = Goal(task.metric, float(cfg[model.target][cfg.model_size]))
    driver.init_end(**device.describe(), threads=threads, architecture=dict(preset),
                    parameters=sum(p.numel() for p in net.parameters()), weights=weights,
                    **({"padded_vocab_size": built["vocab_size"]} if built is not preset else {}),
                    seq_len=seq_len, eval_size=task.eval_size(data, cfg),
                    forward_flops_per_sequence=forward)
    run_and_finish(driver, loop, device, goal, task.work_unit, task.train_flops(forward, seq_len),
                   attention=attention_per_unit(task, counted, seq_len))
    # DDP's reducer goes first, while the process group still has other owners: were it the
    # last owner, the group's destructor would join gloo's worker thread holding the GIL, and
    # that thread may need the GIL to free a finished all-reduce's tensors (a deadlock seen
    # after FINISHED). destroy_process_group then shuts the group down without the GIL.
    del loop, net
    if tdist.is_initialized():
        tdist.destroy_process_group()


def attention_per_unit(task: Task, counted: ForwardCount, seq_len: Any) -> Attention:
    """The attention part of ``task.train_flops`` (linear in the forward FLOPs in every task:
    3 x forward, per sequence, token or sample), causal where the task is a causal LM."""
    return Attention(task.train_flops(counted.attention, seq_len),
                     causal=bool(getattr(task, "causal_attention", False)))
