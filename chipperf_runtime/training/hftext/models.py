"""Language models from Hugging Face transformers, built from a config (no weights downloaded).

``TextModel`` is what a case hands ``hftext.case.main``: the architecture (a key of ``ARCHS``),
its presets (the keyword arguments of the architecture's ``PretrainedConfig``; ``model_size``
picks one) and the task it trains on. FLOPs are counted by ``torch.utils.flop_counter`` on the
meta device: 2 per multiply-accumulate of every matrix product and attention product of one
forward pass over one sequence. The attention part of it (``ForwardCount.attention``) is the
counter's batched products of activations with activations (``bmm``, ``baddbmm``, SDPA's own
ops): the score and value products, counted whole (on the meta device SDPA runs its math path,
two ``bmm`` per layer; no weight of these models is a batched operand).
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any, Mapping

import torch
from torch import nn
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils.flop_counter import FlopCounterMode

from chipperf_runtime.training.driver import Config, ConfigError
from chipperf_runtime.training.hftext.tasks import Task

# case architecture -> (transformers config class, model class)
ARCHS = {
    "bert": ("BertConfig", "BertForMaskedLM"),
    "distilbert": ("DistilBertConfig", "DistilBertForMaskedLM"),
    "gpt2": ("GPT2Config", "GPT2LMHeadModel"),
    "t5": ("T5Config", "T5ForConditionalGeneration"),
    "longformer": ("LongformerConfig", "LongformerForMaskedLM"),
    "mt_transformer": ("TransformerConfig", "TransformerMT"),
    "glm": ("GLMConfig", "GLMForMultiTokenCloze"),
}
# architectures no library in the images has, written out in chipperf_runtime.models
LOCAL = {"mt_transformer": "chipperf_runtime.models.mt_transformer",
         "glm": "chipperf_runtime.models.glm"}


@dataclass(frozen=True)
class TextModel:
    """What varies between the text cases: the network, its sizes, its task."""

    arch: str
    presets: Mapping[str, Mapping[str, Any]]
    task: Task
    prepare: str          # the script that makes the CI data (named when the data dir is missing)
    target: str = "target_accuracy"   # the parameter holding the target per model size


ATTENTION = "sdpa"    # torch's scaled_dot_product_attention: flash / memory-efficient kernels


def library(arch: str) -> Any:
    """The module holding ``arch``'s classes: transformers, or chipperf's (``LOCAL``)."""
    return importlib.import_module(LOCAL.get(arch, "transformers"))


def hf_config(arch: str, preset: Mapping[str, Any]) -> Any:
    """The architecture's config of ``preset``; attention through SDPA (``ATTENTION``: said
    explicitly, not left to the transformers version's default) where the model supports it
    (Longformer's sliding-window attention does not: it keeps its own)."""
    module = library(arch)
    sdpa = arch not in LOCAL and getattr(getattr(module, ARCHS[arch][1]), "_supports_sdpa", False)
    attention = {"attn_implementation": ATTENTION} if sdpa else {}
    return getattr(module, ARCHS[arch][0])(**preset, **attention)


def attention_of(net: nn.Module) -> str:
    """The attention implementation the built network runs (for FINISHED's ``execution``)."""
    return str(getattr(getattr(net, "config", None), "_attn_implementation", None) or "unknown")


def hf_model(arch: str, preset: Mapping[str, Any]) -> nn.Module:
    """The ``arch`` network of ``preset``, randomly initialised on the current default device
    (``with torch.device("meta")`` builds it without memory)."""
    return getattr(library(arch), ARCHS[arch][1])(hf_config(arch, preset))


def preset_of(cfg: Config, presets: Mapping[str, Mapping[str, Any]]) -> Mapping[str, Any]:
    if cfg.model_size not in presets:
        raise ConfigError(f"model_size {cfg.model_size!r} is unknown: use one of {sorted(presets)}")
    return presets[cfg.model_size]


class MetaScalars(TorchDispatchMode):
    """Reads a meta tensor's scalar (``.item()``, ``bool(t)``) as 0 instead of failing: a model
    whose forward branches on its data (Longformer: is any token global? is the last token
    padding?) takes the no-global, no-padding path, the one its training takes, and is
    counted on the meta device like the others (tests/runtime/test_text_models.py checks
    the count against a real forward of a small one)."""

    def __torch_dispatch__(self, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
        if func is torch.ops.aten._local_scalar_dense.default and args[0].is_meta:
            return 0.0 if args[0].dtype.is_floating_point else 0
        return func(*args, **(kwargs or {}))


# torch's FLOP counter's ops that multiply activations by activations: attention's products
ATTENTION_OPS = ("aten.bmm", "aten.baddbmm")


@dataclass(frozen=True)
class ForwardCount:
    """One forward pass's FLOPs, and the attention products' part of them (module doc)."""

    total: int
    attention: int


def count_forward(net: nn.Module, task: Task, seq_len: Any) -> ForwardCount:
    """FLOPs of one forward pass over one sequence of ``seq_len`` tokens (an encoder-decoder's:
    a (source, target) pair of widths; ``net`` may live on the meta device), counted in eval
    mode with the training mode restored after."""
    device = next(net.parameters()).device
    was_training = net.training
    net.eval()
    with FlopCounterMode(display=False) as counter, torch.no_grad(), MetaScalars():
        net(**task.example(seq_len, device))
    net.train(was_training)
    ops = counter.get_flop_counts().get("Global", {})
    attention = sum(n for op, n in ops.items() if is_attention_op(str(op)))
    return ForwardCount(int(counter.get_total_flops()), int(attention))


def is_attention_op(name: str) -> bool:
    return name in ATTENTION_OPS or "scaled_dot_product" in name


def count_forward_flops(net: nn.Module, task: Task, seq_len: Any) -> int:
    """``count_forward``'s total."""
    return count_forward(net, task, seq_len).total


def forward_count(model: TextModel, preset: Mapping[str, Any], seq_len: Any) -> ForwardCount:
    """Forward FLOPs per sequence of the ``preset`` network, built on the meta device."""
    with torch.device("meta"):
        return count_forward(hf_model(model.arch, preset), model.task, seq_len)
