"""The LLM cases on Megatron-Core (``implementation = "megatron_core"``): FlagPerf runs
llama3_8B, llama3_70B, mixtral_8x7B and llama2_70B under Megatron; this trains the case's
architecture with Megatron-Core's own pieces instead of chipperf's torch-native ones:

- ``GPTModel`` with the local (non-TransformerEngine) layer spec
  (``get_gpt_layer_local_spec``), built from the case's preset (``transformer_config``: the same
  layers, widths, heads, SwiGLU, RMSNorm, RoPE and experts, so the parameter count is the
  native case's);
- ``parallel_state`` for tensor, pipeline and expert parallelism (Megatron's rank order
  tp-cp-ep-dp-pp: tensor-parallel ranks consecutive, inside a node, as chipperf's layout);
- the pipeline schedule from ``get_forward_backward_func`` (no pipelining, or 1F1B);
- Megatron's DistributedDataParallel and its distributed optimizer (``get_megatron_optimizer``:
  Adam with decoupled weight decay, bf16 with fp32 main weights, global-norm clipping).

The data (the case's token shards and batching), the warmup-cosine learning rate, the loop,
the eval-loss goal and FINISHED (FLOPs per token from ``llmtrain.arch``) are the case's own,
so the two implementations' figures mean the same; the workload fingerprint keeps them apart.

CUDA GPUs only: megatron-core (0.16.1) builds a GPTModel on the CPU, but its RoPE moves its
frequencies to ``torch.cuda.current_device()``, its DistributedDataParallel puts its gradient
buffer on the GPU, its all-to-all MoE dispatcher makes a CUDA stream and its schedules
allocate on ``device="cuda"``; on a CPU torch each raises "Torch not
compiled with CUDA enabled" (the plan refuses the cpu vendor: chipperf.config.megatron_core).
"""

from __future__ import annotations

import importlib.metadata
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F

from chipperf_runtime.device.torch import TorchDevice
from chipperf_runtime.training.driver import Config, ConfigError, Driver
from chipperf_runtime.training.driver.torchdist import all_reduce_sum, init_distributed
from chipperf_runtime.training.llmtrain.parallel import Layout
from chipperf_runtime.training.textlm import tokens
from chipperf_runtime.training.textlm.checks import raise_problems
from chipperf_runtime.training.textlm.loop import warmup_cosine

PACKAGE = "megatron-core"
DTYPES = {"fp32": torch.float32, "bf16": torch.bfloat16}


def layout_problems(cfg: Config, values: Mapping[str, Any], layout: Layout) -> list[str]:
    """What this build of the case cannot run on Megatron-Core (pure)."""
    problems = []
    if layout.pipeline_parallel > 1 and layout.pipeline_schedule != "1f1b":
        problems.append(f"pipeline_schedule {layout.pipeline_schedule!r}: implementation "
                        "'megatron_core' runs Megatron-Core's 1F1B schedule: set it to '1f1b'")
    if layout.context_parallel > 1 or layout.sequence_parallel:
        problems.append(f"context_parallel {layout.context_parallel}, sequence_parallel "
                        f"{layout.sequence_parallel}: implementation 'megatron_core' runs without "
                        "either (the local layer spec's torch norm refuses sequence parallelism): "
                        "set context_parallel = 1 and sequence_parallel = False")
    if values["vocab_size"] % layout.tensor_parallel:
        problems.append(f"vocab_size {values['vocab_size']} of model_size {cfg.model_size!r} is "
                        f"not a multiple of tensor_parallel {layout.tensor_parallel} (Megatron-Core "
                        "splits the embedding evenly): use a tensor_parallel that divides it")
    if "rope_scaling" in values:
        problems.append(f"model_size {cfg.model_size!r} scales RoPE as Llama 3.1+ does, which "
                        "this Megatron-Core build does not map: use another model_size")
    if values.get("tie_word_embeddings") and layout.pipeline_parallel > 1:
        problems.append(f"model_size {cfg.model_size!r} ties its lm_head to the embedding: run "
                        "it with pipeline_parallel 1")
    return problems


def transformer_config(cfg: Config, values: Mapping[str, Any], layout: Layout,
                       cpu_initialization: bool = False) -> dict[str, Any]:
    """``TransformerConfig``'s arguments for the case's preset ``values`` (pure)."""
    heads, experts = values["num_attention_heads"], values.get("num_local_experts")
    recompute = {"recompute_granularity": "full", "recompute_method": "uniform",
                 "recompute_num_layers": 1} if cfg.activation_checkpointing else {}
    moe = {"num_moe_experts": experts, "moe_router_topk": values["num_experts_per_tok"],
           "moe_aux_loss_coeff": float(cfg.router_aux_loss_coef), "moe_grouped_gemm": False,
           "moe_router_load_balancing_type": "aux_loss",
           # all-to-all needs a CUDA stream at construction; all-gather builds anywhere
           "moe_token_dispatcher_type": "allgather" if cpu_initialization else "alltoall",
           } if experts else {}
    return dict(
        num_layers=values["num_hidden_layers"], hidden_size=values["hidden_size"],
        num_attention_heads=heads, num_query_groups=values.get("num_key_value_heads", heads),
        kv_channels=values["hidden_size"] // heads, ffn_hidden_size=values["intermediate_size"],
        normalization="RMSNorm", layernorm_epsilon=values["rms_norm_eps"],
        gated_linear_unit=True, activation_func=F.silu, add_bias_linear=False,
        hidden_dropout=0.0, attention_dropout=0.0,       # Llama and Mixtral train without dropout
        # no sequence parallelism: the local spec's torch norm refuses it ("sequence parallel not
        # supported by torch LayerNorm", megatron-core 0.16.1 at tensor_parallel 2, gloo);
        # Megatron-Core only warns for expert x tensor parallelism without it
        sequence_parallel=False,
        bias_activation_fusion=False, masked_softmax_fusion=False, persist_layer_norm=False,
        gradient_accumulation_fusion=False, apply_rope_fusion=False,
        init_method_std=0.02, params_dtype=DTYPES[cfg.dtype], pipeline_dtype=DTYPES[cfg.dtype],
        bf16=cfg.dtype == "bf16", use_cpu_initialization=cpu_initialization,
        tensor_model_parallel_size=layout.tensor_parallel,
        pipeline_model_parallel_size=layout.pipeline_parallel,
        expert_model_parallel_size=layout.expert_parallel, **recompute, **moe)


def build_model(cfg: Config, values: Mapping[str, Any], layout: Layout,
                cpu_initialization: bool = False) -> torch.nn.Module:
    """This rank's stage of Megatron-Core's GPTModel (local layer spec); ``parallel_state``
    must be initialised."""
    core = _core()
    config = core.TransformerConfig(**transformer_config(cfg, values, layout, cpu_initialization))
    spec = core.get_gpt_layer_local_spec(num_experts=values.get("num_local_experts"),
                                         moe_grouped_gemm=False)
    return core.GPTModel(
        config=config, transformer_layer_spec=spec, vocab_size=values["vocab_size"],
        max_sequence_length=cfg.seq_len, pre_process=core.ps.is_pipeline_first_stage(),
        post_process=core.ps.is_pipeline_last_stage(),
        share_embeddings_and_output_weights=bool(values.get("tie_word_embeddings")),
        position_embedding_type="rope", rotary_base=int(values["rope_theta"]))


def version() -> str:
    """The installed megatron-core's version (recorded in FINISHED's ``execution``)."""
    return importlib.metadata.version(PACKAGE)


@dataclass
class MegatronTrainer:
    """A ``textlm.loop.Trainer`` over Megatron-Core's schedule: one batch is a step's
    micro-batches (this data-parallel rank's share of the global batch)."""

    model: Any                                   # Megatron's DistributedDataParallel
    optimizer: Any                               # MegatronOptimizer
    device: torch.device
    data: tokens.TokenDataset
    cfg: Config
    layout: Layout
    last_lr: float = 0.0
    step_no: int = field(default=0)

    def batches(self, epoch: int) -> Iterator[list[np.ndarray]]:
        ps, micro = _core().ps, self.cfg.micro_batch_size
        per_step = self.cfg.global_batch_size // self.layout.data_parallel // micro
        batch: list[np.ndarray] = []
        for window in tokens.train_micro_batches(
                self.data, self.cfg.global_batch_size, micro, ps.get_data_parallel_rank(),
                self.layout.data_parallel, self.cfg.seed, epoch):
            batch.append(window)
            if len(batch) == per_step:
                yield batch
                batch = []

    def step(self, batch: list[np.ndarray]) -> tuple[torch.Tensor, bool]:
        self.model.zero_grad_buffer()
        self.optimizer.zero_grad()
        self.last_lr = self.cfg.learning_rate * warmup_cosine(
            self.cfg.warmup_steps, self.cfg.max_steps, self.cfg.min_lr_ratio)(self.step_no)
        for group in self.optimizer.param_groups:
            group["lr"] = self.last_lr
        losses = self._run(batch, forward_only=False)
        self.optimizer.step()
        self.step_no += 1
        return losses, True

    def work(self, batch: list[np.ndarray]) -> int:
        """Tokens predicted, counted by one rank of each tensor- and pipeline-parallel group."""
        ps = _core().ps
        if ps.get_tensor_model_parallel_rank() or ps.get_pipeline_model_parallel_rank():
            return 0
        return sum(b.shape[0] * (b.shape[1] - 1) for b in batch)

    def lr(self) -> float:
        return self.last_lr

    def evaluate(self) -> float:
        ps, micro = _core().ps, self.cfg.micro_batch_size
        batch = tokens.eval_batches(self.data, micro, ps.get_data_parallel_rank(),
                                    self.layout.data_parallel, self.cfg.eval_samples)
        with torch.no_grad():
            return float(self._run(batch, forward_only=True))

    def _run(self, batch: list[np.ndarray], forward_only: bool) -> torch.Tensor:
        """The schedule over ``batch``; the mean loss of every data-parallel rank's
        micro-batches (the last stage's tensor-parallel rank 0 holds each; summed over all)."""
        core = _core()
        out = core.forward_backward_func()(
            forward_step_func=self._forward_step, data_iterator=iter(batch), model=[self.model],
            num_microbatches=len(batch), seq_length=self.cfg.seq_len,
            micro_batch_size=self.cfg.micro_batch_size, forward_only=forward_only)
        counts = core.ps.is_pipeline_last_stage() and core.ps.get_tensor_model_parallel_rank() == 0
        local = sum(float(o["loss"]) for o in out) if counts and out else 0.0
        total, n = all_reduce_sum([local, float(len(out)) if counts else 0.0], self.device)
        return torch.tensor(total / max(n, 1.0))

    def _forward_step(self, data_iterator: Iterator[np.ndarray], model: Any) -> tuple[Any, Any]:
        window = torch.as_tensor(next(data_iterator), device=self.device, dtype=torch.long)
        inputs, labels = window[:, :-1], window[:, 1:]
        positions = torch.arange(inputs.shape[1], device=self.device).unsqueeze(0)
        per_token = model(inputs, positions.expand_as(inputs), None, labels=labels)

        def loss(output: torch.Tensor) -> tuple[torch.Tensor, dict[str, torch.Tensor]]:
            mean = output.float().mean()
            return mean, {"loss": mean.detach()}
        return per_token, loss


def prepare(driver: Driver, spec: Any, values: Mapping[str, Any], layout: Layout
            ) -> tuple[TorchDevice, MegatronTrainer, dict[str, Any]]:
    """The device, the trainer over Megatron-Core and INIT_END's facts; raises ConfigError
    when this process cannot run Megatron-Core (not a CUDA device, the package missing)."""
    cfg, dist = driver.config, driver.dist
    raise_problems(layout_problems(cfg, values, layout))
    data = spec.open_data(driver.args.data_dir, cfg.seq_len, values["vocab_size"], spec.prepare)
    tokens.check_batching(data, cfg.global_batch_size, cfg.micro_batch_size, layout.data_parallel)
    device = init_distributed(dist)
    if device.device.type != "cuda":
        raise ConfigError(f"implementation 'megatron_core': Megatron-Core's schedules allocate on "
                          f"CUDA and this process's device is {device.device.type!r}: run on an "
                          "nvidia host, or set implementation = 'native'")
    driver.set_sync(device.synchronize)
    core = _core()
    core.ps.initialize_model_parallel(
        tensor_model_parallel_size=layout.tensor_parallel,
        pipeline_model_parallel_size=layout.pipeline_parallel,
        expert_model_parallel_size=layout.expert_parallel)
    core.model_parallel_cuda_manual_seed(cfg.seed)
    model = _wrapped(core, build_model(cfg, values, layout).to(device.device))
    optimizer = core.get_megatron_optimizer(core.OptimizerConfig(
        optimizer="adam", lr=cfg.learning_rate, min_lr=cfg.learning_rate * cfg.min_lr_ratio,
        weight_decay=cfg.weight_decay, adam_beta1=cfg.adam_beta1, adam_beta2=cfg.adam_beta2,
        adam_eps=cfg.adam_eps, clip_grad=cfg.grad_clip_norm, bf16=cfg.dtype == "bf16",
        params_dtype=DTYPES[cfg.dtype], use_distributed_optimizer=True), [model])
    driver.executed(implementation="megatron_core", megatron_core=version(),
                    layer_spec="local (no TransformerEngine)", optimizer="Megatron distributed Adam")
    facts = dict(architecture=dict(values), layout=layout.describe(),
                 train_samples=len(data.train), eval_samples=len(data.eval))
    return device, MegatronTrainer(model, optimizer, device.device, data, cfg, layout), facts


def _wrapped(core: Any, model: torch.nn.Module) -> Any:
    """Megatron's DistributedDataParallel: fp32 gradient buffers, reduced once per step."""
    ddp = core.DistributedDataParallelConfig(grad_reduce_in_fp32=True, overlap_grad_reduce=False,
                                             use_distributed_optimizer=True)
    return core.DistributedDataParallel(config=model.config, ddp_config=ddp, module=model)


@dataclass(frozen=True)
class _Core:
    """The megatron.core names this module uses, imported once on first use."""

    ps: Any
    TransformerConfig: Any
    GPTModel: Any
    get_gpt_layer_local_spec: Any
    forward_backward_func: Any
    model_parallel_cuda_manual_seed: Any
    DistributedDataParallel: Any
    DistributedDataParallelConfig: Any
    OptimizerConfig: Any
    get_megatron_optimizer: Any


_CORE: list[_Core] = []


def _core() -> _Core:
    if not _CORE:
        try:
            from megatron.core import parallel_state
            from megatron.core.distributed import (
                DistributedDataParallel,
                DistributedDataParallelConfig,
            )
            from megatron.core.models.gpt import GPTModel
            from megatron.core.models.gpt.gpt_layer_specs import get_gpt_layer_local_spec
            from megatron.core.optimizer import OptimizerConfig, get_megatron_optimizer
            from megatron.core.pipeline_parallel import get_forward_backward_func
            from megatron.core.tensor_parallel.random import model_parallel_cuda_manual_seed
            from megatron.core.transformer.transformer_config import TransformerConfig
        except ImportError as err:
            raise ConfigError(f"implementation 'megatron_core': cannot import megatron.core "
                              f"({err}): install {PACKAGE} in the image (the nvidia pytorch "
                              "image has it), or set implementation = 'native'") from err
        _CORE.append(_Core(parallel_state, TransformerConfig, GPTModel, get_gpt_layer_local_spec,
                           get_forward_backward_func, model_parallel_cuda_manual_seed,
                           DistributedDataParallel, DistributedDataParallelConfig,
                           OptimizerConfig, get_megatron_optimizer))
    return _CORE[0]
