"""llama2_7b / DeepSpeed training case: Llama-2-7B (transformers' LlamaForCausalLM, built from
a LlamaConfig) trained as a causal LM with ZeRO to an eval-loss target.

    python -m deepspeed.launcher.launch ... run_pretraining.py --data_dir D \
        --extern_config_dir DIR --extern_config_file config_<chip>x<nnodes>x<nproc>.py \
        --output_dir OUT [--set name=value ...]

Any launcher that sets RANK, LOCAL_RANK, WORLD_SIZE, MASTER_ADDR and MASTER_PORT works
(deepspeed, torchrun). The device is the vendor's (chipperf_runtime.device) and DeepSpeed's accelerator
must be the same kind (``DS_ACCELERATOR=cpu`` on the cpu vendor); the communication backend is
the device's (chipperf_runtime.device; gloo on the CPU). See
README.md for the dataset layout, the FLOPs formula and the measured CI runs.
"""

from __future__ import annotations

from chipperf_runtime.models.tvision import prepare_torchvision

prepare_torchvision()  # first, explicitly: torchvision (transformers imports it) beside a CPU torch

import math
import os
from pathlib import Path
from typing import Any

import deepspeed
import torch
from deepspeed.accelerator import get_accelerator
from llama_train import Loop
from transformers import AutoModelForCausalLM, LlamaConfig

from chipperf_runtime.device import DeviceError
from chipperf_runtime.device.torch import TorchDevice, open_torch_device
from chipperf_runtime.training.driver import Attention, Config, DistEnv, Driver, run_case
from chipperf_runtime.training.driver.dist import rank_threads, use_interface_towards_master
from chipperf_runtime.training.driver.errors import DeviceUnavailable
from chipperf_runtime.training.llmtrain import arch
from chipperf_runtime.training.textlm import tokens
from chipperf_runtime.training.textlm.checks import (
    count_problems,
    dtype_problems,
    raise_problems,
    size_problems,
)
from chipperf_runtime.training.textlm.finish import run_and_finish
from chipperf_runtime.training.textlm.loop import Goal, warmup_cosine

# llama_train is this folder's module (python puts the script's folder on sys.path); textlm
# (the text cases' shared package) and llmtrain.arch (parameter and FLOPs formulas of a
# Llama-style config) are shipped beside driver
CASE_DIR = Path(__file__).resolve().parent
PRESETS: dict[str, dict[str, Any]] = {
    # Meta's Llama-2-7b (params.json; FFN width 11008 from its checkpoints): 32 x 4096, 32
    # heads (no GQA), SwiGLU, RoPE theta 10000, RMSNorm eps 1e-5, 32000 tokens, untied lm_head
    "7b": {"vocab_size": 32000, "hidden_size": 4096, "intermediate_size": 11008,
           "num_hidden_layers": 32, "num_attention_heads": 32, "num_key_value_heads": 32,
           "max_position_embeddings": 4096, "rope_theta": 10000.0, "rms_norm_eps": 1e-5,
           "initializer_range": 0.02, "tie_word_embeddings": False},
    # CI: 2 x 128, 4 heads, FFN 352, on Llama's 3 special + 256 byte-fallback ids (0-258)
    "tiny": {"vocab_size": 259, "hidden_size": 128, "intermediate_size": 352,
             "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 4,
             "max_position_embeddings": 256, "rope_theta": 10000.0, "rms_norm_eps": 1e-5,
             "initializer_range": 0.02, "tie_word_embeddings": False},
}
PREPARE = "training/benchmarks/llama2_7b/deepspeed/prepare_data.py"
DTYPES = ("fp32", "bf16")
COUNTS = ("global_batch_size", "micro_batch_size", "max_steps", "eval_every_steps")


def model_config(cfg: Config) -> dict[str, Any]:
    """The architecture of ``model_size`` (LlamaConfig values); raises ConfigError with every
    config problem."""
    problems = size_problems(cfg, PRESETS, "target_eval_loss")
    longest = 0 if problems else PRESETS[cfg.model_size]["max_position_embeddings"]
    if not problems and not 1 <= cfg.seq_len <= longest:
        problems.append(f"seq_len {cfg.seq_len} must be 1..{longest}"
                        f" for model_size {cfg.model_size!r}")
    problems += dtype_problems(cfg, DTYPES)
    if cfg.zero_stage not in (0, 1, 2, 3):
        problems.append(f"zero_stage {cfg.zero_stage} must be 0, 1, 2 or 3")
    raise_problems(problems + count_problems(cfg, COUNTS))
    return dict(PRESETS[cfg.model_size])


def deepspeed_config(cfg: Config, world_size: int) -> dict[str, Any]:
    """The DeepSpeed config the engine runs with (logged in INIT_END)."""
    zero: dict[str, Any] = {"stage": cfg.zero_stage, "overlap_comm": False,
                            "contiguous_gradients": True}
    if cfg.offload_optimizer:
        zero["offload_optimizer"] = {"device": "cpu", "pin_memory": True}
    return {
        "train_batch_size": cfg.global_batch_size,
        "train_micro_batch_size_per_gpu": cfg.micro_batch_size,
        "gradient_accumulation_steps": cfg.global_batch_size // (cfg.micro_batch_size
                                                                 * world_size),
        "optimizer": {"type": "AdamW", "params": {
            "lr": cfg.learning_rate, "betas": [cfg.adam_beta1, cfg.adam_beta2],
            "eps": cfg.adam_eps, "weight_decay": cfg.weight_decay,
            "torch_adam": bool(cfg.torch_adam)}},
        "gradient_clipping": float(cfg.grad_clip_norm),
        "zero_optimization": zero,
        "bf16": {"enabled": cfg.dtype == "bf16"},
        "steps_per_print": 1 << 30,
        "wall_clock_breakdown": False,
        "seed": cfg.seed,
    }


def init_distributed(dist: DistEnv) -> TorchDevice:
    """The rank's device as the vendor named it, after checking that DeepSpeed's accelerator
    is that device; joins the process group with the accelerator's backend."""
    try:
        device = open_torch_device(dist.local_rank)
    except DeviceError as exc:
        raise DeviceUnavailable(str(exc)) from exc
    accelerator = get_accelerator()
    if accelerator.device_name() != device.type:
        raise DeviceUnavailable(
            f"vendor {device.vendor!r} names device {device.type!r} but DeepSpeed's accelerator is "
            f"{accelerator.device_name()!r}: set DS_ACCELERATOR={device.type} in the vendor's image")
    for name, value in (("RANK", dist.rank), ("LOCAL_RANK", dist.local_rank),
                        ("WORLD_SIZE", dist.world_size), ("MASTER_ADDR", dist.master_addr),
                        ("MASTER_PORT", dist.master_port)):
        os.environ.setdefault(name, str(value))  # a plain `python run_pretraining.py` run
    backend = accelerator.communication_backend_name()
    if backend == "gloo":
        use_interface_towards_master(dist)
    deepspeed.init_distributed(dist_backend=backend, auto_mpi_discovery=False)
    return device


def configure_threads(dist: DistEnv, configured: int | None) -> int:
    """``cpu_threads`` when set, else OMP_NUM_THREADS when set, else the usable cores shared
    among this node's ranks."""
    threads = rank_threads(dist, configured)
    torch.set_num_threads(threads)
    return threads


def build_model(cfg: Config, values: dict[str, Any], ds_config: dict, device: torch.device
                ) -> torch.nn.Module:
    """transformers' LlamaForCausalLM from a LlamaConfig of ``values``. ZeRO-3 partitions
    the parameters as they are made; otherwise it is built on the device. Then
    ``initialise``d, so every ZeRO stage and world size starts from the same weights."""
    config = LlamaConfig(**values, attn_implementation="sdpa", use_cache=False)
    if cfg.zero_stage == 3:
        with deepspeed.zero.Init(config_dict_or_path=ds_config):
            model = AutoModelForCausalLM.from_config(config)
    else:
        with torch.device(device):
            model = AutoModelForCausalLM.from_config(config)
    initialise(model, cfg.seed, config.initializer_range)
    if cfg.activation_checkpointing:   # recompute each decoder layer in backward
        model.gradient_checkpointing_enable({"use_reentrant": False})
    return model


@torch.no_grad()
def initialise(model: torch.nn.Module, seed: int, std: float) -> None:
    """transformers' Llama initialisation (normal(0, initializer_range) for the embedding and
    every Linear, ones for the RMSNorm weights), each parameter from its own seeded generator
    and, under ZeRO-3, on its gathered full tensor (rank 0's values are kept)."""
    for index, param in enumerate(model.parameters()):
        with deepspeed.zero.GatheredParameters([param], modifier_rank=0):
            if param.ndim == 1:
                param.fill_(1.0)
            else:
                generator = torch.Generator(param.device).manual_seed(seed * 100_003 + index)
                param.normal_(0.0, std, generator=generator)


def param_groups(model: torch.nn.Module, weight_decay: float) -> list[dict]:
    """Weight decay on matrices only (RMSNorm weights are 1-D)."""
    params = list(model.parameters())
    return [{"params": [p for p in params if p.ndim > 1], "weight_decay": weight_decay},
            {"params": [p for p in params if p.ndim <= 1], "weight_decay": 0.0}]


def build_loop(cfg: Config, dist: DistEnv, device: torch.device, values: dict[str, Any],
               data: tokens.TokenDataset, ds_config: dict) -> tuple[Loop, int]:
    model = build_model(cfg, values, ds_config, device)
    n_params = count_zero_parameters(model)
    schedule = warmup_cosine(cfg.warmup_steps, cfg.max_steps, cfg.min_lr_ratio)
    engine, _, _, _ = deepspeed.initialize(
        model=model, model_parameters=param_groups(model, cfg.weight_decay), config=ds_config,
        lr_scheduler=lambda opt: torch.optim.lr_scheduler.LambdaLR(opt, schedule))
    loop = Loop(
        engine=engine, device=device,
        train_epoch=lambda epoch: tokens.train_micro_batches(
            data, cfg.global_batch_size, cfg.micro_batch_size, dist.rank, dist.world_size,
            cfg.seed, epoch),
        eval_set=tokens.eval_batches(data, cfg.micro_batch_size, dist.rank, dist.world_size,
                                     cfg.eval_samples))
    return loop, n_params


def count_zero_parameters(model: torch.nn.Module) -> int:
    """Parameter count, also under ZeRO-3 (where ``ds_numel`` holds a partitioned size)."""
    return sum(getattr(p, "ds_numel", p.numel()) for p in model.parameters())


def main(argv: list[str] | None = None) -> None:
    driver = Driver.start("llama2_7b", CASE_DIR, argv)
    cfg, dist = driver.config, driver.dist
    values = model_config(cfg)
    data = tokens.open_dataset(driver.args.data_dir, cfg.seq_len, values["vocab_size"], PREPARE)
    tokens.check_batching(data, cfg.global_batch_size, cfg.micro_batch_size, dist.world_size)
    threads = configure_threads(dist, cfg.cpu_threads)
    device = init_distributed(dist)
    driver.set_sync(device.synchronize)
    ds_config = deepspeed_config(cfg, dist.world_size)
    loop, n_params = build_loop(cfg, dist, device.device, values, data, ds_config)
    goal = Goal("eval_loss", float(cfg.target_eval_loss[cfg.model_size]), higher_is_better=False,
                details=lambda loss: {"perplexity": math.exp(min(loss, 50.0))})
    driver.init_end(**device.describe(), threads=threads, architecture=values,
                    parameters=n_params, deepspeed_config=ds_config,
                    deepspeed_version=deepspeed.__version__,
                    accelerator=get_accelerator().device_name(),
                    train_samples=len(data.train), eval_samples=len(data.eval))
    run_and_finish(driver, loop, device, goal, "tokens", arch.train_flops_per_token(values, cfg.seq_len),
                   attention=Attention(arch.attention_train_flops_per_token(values, cfg.seq_len),
                                       causal=True))


if __name__ == "__main__":
    run_case(main)
