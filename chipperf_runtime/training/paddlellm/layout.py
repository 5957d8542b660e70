"""The parallel layout of a Paddle LLM run, from FlagPerf's degree knobs (pure: no paddle).

Ranks are ordered tensor-parallel innermost, then data parallel, then pipeline stages:
``rank = stage * (data * tp) + data_rank * tp + tp_rank``. A tensor-parallel group therefore
sits on consecutive ranks (inside a node when TP divides the processes per node). Sharding
(ZeRO stage 1 or 2) splits the optimizer state over the data-parallel ranks: its degree is 1
(plain data parallel) or the whole data-parallel degree, as in every FlagPerf config.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from chipperf_runtime.training.driver import ConfigError


@dataclass(frozen=True)
class Layout:
    tp: int
    pp: int
    sharding: int            # 1: data parallel; else the data-parallel degree (ZeRO)
    stage: int               # ZeRO stage (1: optimizer state, 2: + gradients)
    world: int

    @property
    def data(self) -> int:
        return self.world // (self.tp * self.pp)

    def coords(self, rank: int) -> tuple[int, int, int]:
        """(pipeline stage, data rank, tensor rank) of a global rank."""
        return rank // (self.data * self.tp), rank // self.tp % self.data, rank % self.tp

    def rank_of(self, stage: int, data_rank: int, tp_rank: int) -> int:
        return stage * self.data * self.tp + data_rank * self.tp + tp_rank

    def tp_groups(self) -> list[list[int]]:
        return [[self.rank_of(s, d, t) for t in range(self.tp)]
                for s in range(self.pp) for d in range(self.data)]

    def data_groups(self) -> list[list[int]]:
        return [[self.rank_of(s, d, t) for d in range(self.data)]
                for s in range(self.pp) for t in range(self.tp)]

    def pp_groups(self) -> list[list[int]]:
        return [[self.rank_of(s, d, t) for s in range(self.pp)]
                for d in range(self.data) for t in range(self.tp)]

    def describe(self) -> dict[str, int]:
        return {"tensor_parallel": self.tp, "pipeline_parallel": self.pp,
                "data_parallel": self.data, "sharding_parallel": self.sharding,
                "sharding_stage": self.stage if self.sharding > 1 else 0}


def sharding_stage(value: Any) -> int:
    """FlagPerf's ``sharding = "stage1"`` / ``"stage2"`` -> 1 / 2."""
    text = str(value).strip().lower()
    if text not in ("stage1", "stage2"):
        raise ConfigError(f"sharding = {value!r}: use 'stage1' or 'stage2' (FlagPerf's values; "
                          "stage3 is not implemented)")
    return int(text[-1])


def layout_from_config(cfg: Mapping[str, Any], world: int, shape: Mapping[str, Any]) -> Layout:
    """The layout the config's degrees give on ``world`` ranks; a ConfigError naming every
    degree that does not fit the world or the model."""
    tp, pp, sh = (int(cfg[k]) for k in ("tensor_parallel_degree", "pipeline_parallel_degree",
                                         "sharding_parallel_degree"))
    problems = [f"{k} = {v}: give a whole number >= 1" for k, v in (
        ("tensor_parallel_degree", tp), ("pipeline_parallel_degree", pp),
        ("sharding_parallel_degree", sh)) if v < 1]
    if problems:
        raise ConfigError("; ".join(problems))
    stage = sharding_stage(cfg["sharding"])
    if world % (tp * pp):
        problems.append(f"tensor_parallel_degree {tp} x pipeline_parallel_degree {pp} does not "
                        f"divide the world size {world}: choose degrees whose product divides it")
    elif sh not in (1, world // (tp * pp)):
        problems.append(f"sharding_parallel_degree {sh}: give 1 (data parallel) or the whole "
                        f"data-parallel degree {world // (tp * pp)} (world {world} / TP {tp} / "
                        f"PP {pp})")
    problems += shape_problems(tp, pp, shape)
    if problems:
        raise ConfigError("; ".join(problems))
    return Layout(tp, pp, sh, stage, world)


def shape_problems(tp: int, pp: int, shape: Mapping[str, Any]) -> list[str]:
    """The model's heads and MLP width split over TP ranks, its layers over PP stages."""
    problems = [f"tensor_parallel_degree {tp} does not divide the model's {shape[k]} {what}"
                for k, what in (("num_attention_heads", "attention heads"),
                                ("intermediate_size", "MLP width")) if shape[k] % tp]
    if shape["num_hidden_layers"] % pp:
        problems.append(f"pipeline_parallel_degree {pp} does not divide the model's "
                        f"{shape['num_hidden_layers']} layers")
    return problems
