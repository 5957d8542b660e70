"""Released Megatron-LM weights as FlagPerf's cases start from them: a ``torch.save``-d
``{"module" or "model": {name: tensor}}`` (or the bare state dict) under ``init_checkpoint``,
relative to the data dir, read with ``torch.load(weights_only=True)``; every problem (a
missing, unexpected or misshapen tensor) in one DataError, and nothing loaded then.

``load_megatron_gpt2``: Megatron-LM's GPT-2 (CPM-1's released ``cpm_model_states_medium.pt``,
FlagPerf's cpm: its ``model/models/gpt2_modeling.py`` names) into transformers'
``GPT2LMHeadModel``: the same network, transformers' ``Conv1D`` holding each linear layer's
weight transposed ([in, out]); query, key and value are stacked in the same order in both.
The LM head is the word embeddings in both (tied). ``MegatronGPT2LM`` is the causal-LM
task whose starting weights those are when ``from_checkpoint`` is set.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Mapping

import torch
from torch import nn

from chipperf_runtime.training.driver import Config, DataError
from chipperf_runtime.training.hftext import flagperf_cpm
from chipperf_runtime.training.hftext.tasks import CausalLM
from chipperf_runtime.training.textlm import tokens

Tensors = Mapping[str, torch.Tensor]
WRAPPERS = ("module", "model")
# a GPT-2 block's parts: (Megatron's, transformers', a linear layer whose weight is transposed)
GPT2_BLOCK = (("input_layernorm", "ln_1", False), ("attention.query_key_value", "attn.c_attn", True),
              ("attention.dense", "attn.c_proj", True), ("post_attention_layernorm", "ln_2", False),
              ("mlp.dense_h_to_4h", "mlp.c_fc", True), ("mlp.dense_4h_to_h", "mlp.c_proj", True))


def read_state(file: Path, what: str) -> Tensors:
    """The state dict in ``file`` (``what``: the weights, for the messages)."""
    if not file.is_file():
        raise DataError(f"init_checkpoint {file} does not exist: put {what} there, or set "
                        "from_checkpoint = False")
    try:
        state = torch.load(file, map_location="cpu", weights_only=True)
    except Exception as exc:  # noqa: BLE001 - any unreadable file gets the same advice
        raise DataError(f"init_checkpoint {file} cannot be read by torch.load(weights_only=True) "
                        f"({type(exc).__name__}): keep only its weights, e.g. torch.save("
                        "{'module': torch.load(f, weights_only=False)['module']}, f)") from exc
    for key in WRAPPERS:
        if isinstance(state, dict) and isinstance(state.get(key), dict):
            state = state[key]
    if not isinstance(state, dict):
        raise DataError(f"init_checkpoint {file} holds a {type(state).__name__}, not {what}'s "
                        "state dict")
    return state


def load_checkpoint(net: nn.Module, file: Path, what: str,
                    load: Callable[[Any, Tensors], list[str]]) -> None:
    """``file``'s weights into ``net`` by ``load`` (which returns the problems)."""
    problems = load(net, read_state(file, what))
    if problems:
        raise DataError(f"init_checkpoint {file} does not fit the model_size's network:\n"
                        + "\n".join(f"  - {p}" for p in problems))


def gpt2_names(layers: int) -> dict[str, tuple[str, bool]]:
    """transformers' GPT2LMHeadModel name -> (Megatron's name, transposed)."""
    names = {"transformer.wte.weight": ("word_embeddings.weight", False),
             "transformer.wpe.weight": ("position_embeddings.weight", False),
             **{f"transformer.ln_f.{p}": (f"transformer.final_layernorm.{p}", False)
                for p in ("weight", "bias")}}
    for i in range(layers):
        for theirs, ours, linear in GPT2_BLOCK:
            for part in ("weight", "bias"):
                names[f"transformer.h.{i}.{ours}.{part}"] = (f"transformer.layers.{i}.{theirs}.{part}",
                                                              linear and part == "weight")
    return names


def load_megatron_gpt2(net: Any, state: Tensors) -> list[str]:
    """Megatron-LM GPT-2's ``state`` into transformers' GPT2LMHeadModel ``net``; the problems."""
    own = net.state_dict()
    names = gpt2_names(len(net.transformer.h))
    loaded, problems = {}, []
    for ours, (theirs, transposed) in names.items():
        given, expected = state.get(theirs), own[ours].t() if transposed else own[ours]
        if given is None:
            problems.append(f"{theirs} is missing")
        elif given.shape != expected.shape:       # both in Megatron's layout
            problems.append(f"{theirs} has shape {tuple(given.shape)}, the model "
                            f"{tuple(expected.shape)}")
        else:
            loaded[ours] = given.t() if transposed else given
    known = {theirs for theirs, _ in names.values()}
    problems += [f"{k} is not a tensor of this model" for k in sorted(set(state) - known)]
    if not problems:
        missing, _ = net.load_state_dict(loaded, strict=False)
        assert set(missing) <= {"lm_head.weight"}, missing    # tied to the word embeddings
    return problems


@dataclass(frozen=True)
class RootedTokens(tokens.TokenDataset):
    root: Path = Path(".")          # the data dir (init_checkpoint is named relative to it)


@dataclass(frozen=True)
class MegatronGPT2LM(CausalLM):
    """``CausalLM`` starting from Megatron-LM GPT-2 weights (``init_checkpoint``) when the
    config sets ``from_checkpoint``."""

    def open(self, data_dir: Path, arch: Any, cfg: Config, prepare: str) -> RootedTokens:
        """The token layouts of ``CausalLM``, or FlagPerf's cpm raw text (``flagperf_cpm``)."""
        if flagperf_cpm.is_flagperf_layout(data_dir):
            data = flagperf_cpm.open_dataset(data_dir, cfg.seq_len, arch.vocab_size,
                                             cfg.get("tokenizer_dir"))
        else:
            data = super().open(data_dir, arch, cfg, prepare)
        return RootedTokens(data.train, data.eval, data.vocab_size, Path(data_dir))

    def initialise(self, net: nn.Module, data: RootedTokens, cfg: Config) -> str:
        if not cfg.from_checkpoint:
            return "random"
        file = data.root / cfg.init_checkpoint
        load_checkpoint(net, file, "Megatron-LM GPT-2 weights", load_megatron_gpt2)
        return str(file)
