"""Google TPU generations and slice names (standard library only; the ``tpu`` vendor's facts).

A case key's chip for the ``tpu`` vendor names a generation (``v5p``), an accelerator type
as Cloud TPU writes it (``v5p-16``, ``v5litepod-8``, ``v6e-8``), or a generation and a
topology (``v5p-2x2x1``, ``v6e-2x4``). ``parse_slice`` turns each into a ``TpuSlice`` (chips,
hosts, the torus shape) or raises ``TopologyError`` naming the string and the forms it takes.

Facts from the Cloud TPU system-architecture pages (cloud.google.com/tpu/docs/v4, v5e, v5p,
v6e, tpu7x), read 2026-12-02: TensorCores per chip, chips per host (VM), the torus's
dimensions, and what an accelerator type's number counts (TensorCores on v4 and v5p: ``v5p-16``
is 8 chips; chips on v5e and v6e: ``v6e-8`` is 8 chips).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Optional


class TopologyError(ValueError):
    """A TPU slice string that does not parse; str() names it and the accepted forms."""


@dataclass(frozen=True)
class TpuGeneration:
    name: str                      # chipperf's chip name (the spec sheet's key)
    aliases: tuple[str, ...]       # other spellings of the generation in accelerator types
    tensorcores_per_chip: int
    chips_per_host: int
    torus_dims: int                # 2: AxB slices; 3: AxBxC slices
    type_counts_cores: bool        # True: "<gen>-N" counts TensorCores; False: chips
    # The number in "<gen>-N" is parsed where the docs say what it counts; None: not parsed.
    accelerator_type: bool = True


GENERATIONS: dict[str, TpuGeneration] = {g.name: g for g in (
    TpuGeneration("v4", (), tensorcores_per_chip=2, chips_per_host=4, torus_dims=3,
                  type_counts_cores=True),
    TpuGeneration("v5e", ("v5litepod",), tensorcores_per_chip=1, chips_per_host=8, torus_dims=2,
                  type_counts_cores=False),
    TpuGeneration("v5p", (), tensorcores_per_chip=2, chips_per_host=4, torus_dims=3,
                  type_counts_cores=True),
    TpuGeneration("v6e", (), tensorcores_per_chip=1, chips_per_host=8, torus_dims=2,
                  type_counts_cores=False),
    # TPU7x (Ironwood) is reached through GKE only; its page gives topologies (2x2x1 ...),
    # and chipperf has no source for what a "tpu7x-N" count counts: only the topology form.
    TpuGeneration("v7", ("tpu7x", "7x"), tensorcores_per_chip=2, chips_per_host=4, torus_dims=3,
                  type_counts_cores=False, accelerator_type=False),
)}

FORMS = ("a generation (v4, v5e, v5p, v6e, v7), an accelerator type (v4-8, v5p-16, "
         "v5litepod-8, v6e-8) or a generation and topology (v5p-2x2x1, v6e-2x4, v7-2x2x1)")
_SLICE = re.compile(r"^(?P<gen>[a-z0-9]+?)(?:-(?P<rest>[0-9x]+))?$")


@dataclass(frozen=True)
class TpuSlice:
    generation: TpuGeneration
    chips: int
    shape: Optional[tuple[int, ...]]   # the torus shape where the string gave one

    @property
    def hosts(self) -> int:
        """Hosts (TPU VMs) the slice spans; a slice smaller than one host has one."""
        return math.ceil(self.chips / self.generation.chips_per_host)


def generation_of(name: str) -> Optional[TpuGeneration]:
    """The generation a name or alias stands for (case-insensitive), or None."""
    lowered = name.lower()
    return next((g for g in GENERATIONS.values() if lowered == g.name or lowered in g.aliases),
                None)


def parse_slice(text: str) -> TpuSlice:
    """``v5p`` / ``v5p-16`` / ``v5p-2x2x1`` -> TpuSlice; TopologyError naming ``text``."""
    found = _SLICE.match(text.strip().lower())
    generation = generation_of(found.group("gen")) if found else None
    if found is None or generation is None:
        raise TopologyError(f"TPU slice {text!r} does not parse: no TPU generation in it: "
                            f"write {FORMS}")
    rest = found.group("rest")
    if rest is None:
        return TpuSlice(generation, 1, None)
    if "x" in rest:
        return _from_topology(text, generation, rest)
    return _from_accelerator_type(text, generation, rest)


def _from_topology(text: str, generation: TpuGeneration, rest: str) -> TpuSlice:
    parts = rest.split("x")
    if len(parts) != generation.torus_dims or not all(p.isdigit() and int(p) > 0 for p in parts):
        example = "x".join(["2"] * generation.torus_dims)
        raise TopologyError(f"TPU slice {text!r} does not parse: {generation.name} topologies are "
                            f"{generation.torus_dims} positive whole numbers joined by 'x' "
                            f"(e.g. {generation.name}-{example}): write {FORMS}")
    shape = tuple(int(p) for p in parts)
    return TpuSlice(generation, math.prod(shape), shape)


def _from_accelerator_type(text: str, generation: TpuGeneration, rest: str) -> TpuSlice:
    if not generation.accelerator_type:
        raise TopologyError(f"TPU slice {text!r} does not parse: {generation.name} is named by "
                            f"topology (e.g. {generation.name}-2x2x1), not by a count")
    count = int(rest) if rest.isdigit() else 0
    per_chip = generation.tensorcores_per_chip if generation.type_counts_cores else 1
    if count < 1 or count % per_chip:
        what = "TensorCores (2 per chip: an even number)" if per_chip > 1 else "chips"
        raise TopologyError(f"TPU slice {text!r} does not parse: the number in a "
                            f"{generation.name} accelerator type counts {what}: write {FORMS}")
    return TpuSlice(generation, count // per_chip, None)
