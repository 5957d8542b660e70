"""FlagPerf's parallel-layout chip names (its PaddlePaddle LLM cases): the case key's chip
field ``TP2PP4SH1SP1A10040G`` is a layout followed by the chip, and names the vendor config
``config_TP2PP4SH1SP1A10040Gx1x8.py``.

Read from FlagPerf's nvidia configs (FlagOpen/FlagPerf@1b5a0303,
training/nvidia/llama1_7B-paddle/config/): TP is ``tensor_parallel_degree``, PP
``pipeline_parallel_degree``, SH the sharding stage (``sharding = "stage<SH>"``) and SP
``sharding_parallel_degree`` (not sequence parallelism); data parallel is what is left of the
world. The chip after the layout (``A10040G``: an A100 40 GB) is what the spec sheet is looked
up by.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Optional

_LAYOUT = re.compile(r"^TP(\d+)PP(\d+)SH(\d+)SP(\d+)(.+)$")


@dataclass(frozen=True)
class ChipLayout:
    tensor_parallel: int
    pipeline_parallel: int
    sharding_stage: int
    sharding_parallel: int
    chip: str                   # the chip itself: "A10040G"

    @property
    def product(self) -> int:
        """The ranks one copy of the layout takes: TP x PP x SP."""
        return math.prod((self.tensor_parallel, self.pipeline_parallel, self.sharding_parallel))

    def knobs(self) -> dict[str, object]:
        """The case knobs (FlagPerf's names) the layout fixes."""
        return {"tensor_parallel_degree": self.tensor_parallel,
                "pipeline_parallel_degree": self.pipeline_parallel,
                "sharding_parallel_degree": self.sharding_parallel,
                "sharding": f"stage{self.sharding_stage}"}


def parse_chip_layout(chip: str) -> Optional[ChipLayout]:
    """The layout a chip field carries, or None for a plain chip name."""
    match = _LAYOUT.match(chip)
    if match is None:
        return None
    tp, pp, sh, sp = (int(g) for g in match.groups()[:4])
    return ChipLayout(tp, pp, sh, sp, match.group(5))


def bare_chip(chip: str) -> str:
    """The chip without a layout prefix (``TP2PP4SH1SP1A10040G`` -> ``A10040G``)."""
    layout = parse_chip_layout(chip)
    return chip if layout is None else layout.chip


def layout_problems(layout: ChipLayout, nnodes: int, nproc: int) -> list[str]:
    """Why the layout cannot fill nnodes x nproc ranks ('what is wrong: how to fix')."""
    problems = [f"{name} {value} in the chip name: give a degree >= 1" for name, value in (
        ("TP", layout.tensor_parallel), ("PP", layout.pipeline_parallel),
        ("SP", layout.sharding_parallel)) if value < 1]
    if layout.sharding_stage not in (1, 2):
        problems.append(f"SH{layout.sharding_stage} in the chip name: the sharding stage is 1 "
                        "or 2 (FlagPerf's configs use stage1 and stage2)")
    world = nnodes * nproc
    if not problems and layout.product != world:
        problems.append(
            f"the chip name's layout TP{layout.tensor_parallel} x PP{layout.pipeline_parallel} x "
            f"SP{layout.sharding_parallel} = {layout.product} ranks does not match the world "
            f"size {world} ({nnodes} node(s) x {nproc} processes): choose degrees whose "
            f"product is {world}, or nnodes x nproc = {layout.product}")
    return problems
