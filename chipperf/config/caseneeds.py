"""What a training case needs of its topology and chip, checked at plan time from data.

A standard case folder's ``case.yaml`` may declare, beside ``full_size``::

    parallel:                       # model-parallel degrees set by vendor config knobs
      degrees: [tensor_parallel]    # their product must divide the world size (data parallel
                                    # takes the rest; a degree the config lacks is 1)
      within_node: [tensor_parallel]   # each must divide the processes per node: the
                                       # group sits inside one node
      within_data_parallel: [expert_parallel]   # each must divide the data-parallel degree
                                                # (its groups are data-parallel ranks)
      divides:                      # a degree must divide a count of the chosen model size
        pipeline_parallel: {count: decoder layers, size_knob: model_size,
                            per_size: {8b: 32, tiny: 2}}
      sequence: {length: seq_len}   # context_parallel and sequence_parallel split the sequence
                                    # of this knob (llmtrain/seqsplit.py's rules)
    counts: [lora_rank]             # other knobs that must be whole numbers >= 1
    memory:                         # training state that must fit the chip's memory
      size_knob: model_size         # the knob choosing the model size
      params: {8b: 8030261248, tiny: 4790144}   # parameters per size
      bytes_per_param: 16           # bytes of state per parameter, all ranks together; or
                                    # per value of a knob: {knob: stage, finetune: 16,
                                    # pretrain: 4.04, both: [pretrain, finetune]} (a list:
                                    # the largest of those values' figures, for a run that
                                    # goes through each; a value not listed: 16)
      sharded: true                 # the state is split evenly over every rank (FSDP x TP)
      note: fp32 weights + fp32 gradients + AdamW's two fp32 moments
    checkpoint:                     # the case continues training from a checkpoint
      knob: checkpoint              # the knob naming its folder, relative to the data dir
      written_by: llama3_70B        # the case whose save_checkpoint knob writes one

``needs_problems`` reads those against the resolved config values (``_base.py`` defaults
overridden by the vendor file) and the chip's spec sheet; a chip without a memory figure (the
cpu vendor's labels) is not checked. The memory check is a floor (activations and the
all-gathered layer come on top), so a refused layout cannot run; an accepted one may still
need a smaller micro-batch.
"""

from __future__ import annotations

import math
from pathlib import PurePosixPath
from typing import Any, Mapping, Optional

from chipperf_runtime.training.llmtrain.seqsplit import sequence_split_problems
from chipperf_runtime.vendors.base import ChipSpec

GIB = 2**30


def needs_problems(needs: Mapping[str, Any], values: Mapping[str, Any], nnodes: int, nproc: int,
                   chip: Optional[ChipSpec], where: str) -> list[str]:
    """Every reason this case's config cannot run on nnodes x nproc ``chip``s."""
    problems = _parallel_problems(needs.get("parallel") or {}, values, nnodes, nproc, where)
    _degrees(needs.get("counts"), values, where, problems)
    problems += checkpoint_problems(needs.get("checkpoint"), values, where)
    memory = needs.get("memory")
    if memory and chip is not None and chip.memory_bytes:
        problems += _memory_problems(memory, values, nnodes * nproc, chip, where)
    return problems


def _degrees(names: Any, values: Mapping[str, Any], where: str,
             problems: list[str], unset: int | None = None) -> dict[str, int]:
    """The whole-number knobs ``names`` (``unset``: the value of one the config lacks)."""
    out = {}
    for name in names or ():
        value = values.get(name, unset)
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            problems.append(f"{where}: {name} = {value!r}: give a whole number >= 1")
        else:
            out[name] = value
    return out


def _parallel_problems(parallel: Mapping[str, Any], values: Mapping[str, Any], nnodes: int,
                       nproc: int, where: str) -> list[str]:
    problems: list[str] = []
    degrees = _degrees(parallel.get("degrees"), values, where, problems, unset=1)
    world, product = nnodes * nproc, math.prod(degrees.values())
    if degrees and world % product:
        shown = " x ".join(f"{n} {v}" for n, v in degrees.items() if v > 1)
        problems.append(f"{where}: {shown} does not divide the world size {world} ({nnodes} "
                        f"node(s) x {nproc} processes): choose degrees whose product divides "
                        f"{world}; data parallel is the world size over that product")
        return problems
    for name in parallel.get("within_node") or ():
        tp = degrees.get(name)
        if tp and nproc % tp:
            problems.append(f"{where}: {name} {tp} does not fit the {nproc} processes per node:"
                            f" use a divisor of {nproc}, so that each group sits inside a node")
    data_parallel = world // product
    for name, degree in _degrees(parallel.get("within_data_parallel"), values, where,
                                 problems).items():
        if data_parallel % degree:
            problems.append(f"{where}: {name} {degree} does not divide the data-parallel degree "
                            f"{data_parallel} (world size {world} over {product}): its groups "
                            "are data-parallel ranks")
    return problems + _count_problems(parallel.get("divides") or {}, values, where) + \
        _sequence_problems(parallel.get("sequence"), values, where)


def _sequence_problems(declared: Any, values: Mapping[str, Any], where: str) -> list[str]:
    """Context and sequence parallelism against the sequence length (``sequence: {length:
    seq_len}``: the knob holding it; llmtrain/seqsplit.py's rules, which the case checks too)."""
    if not isinstance(declared, Mapping):
        return []
    unreported: list[str] = []     # a knob that is not a whole number is reported elsewhere
    counts = _degrees([declared.get("length", "seq_len"), "context_parallel", "tensor_parallel"],
                      values, where, unreported, unset=1)
    if unreported:
        return []
    seq_len, cp, tp = counts.values()
    split = sequence_split_problems(seq_len, cp, tp, bool(values.get("sequence_parallel", False)))
    return [f"{where}: {problem}" for problem in split]


def checkpoint_problems(declared: Any, values: Mapping[str, Any], where: str) -> list[str]:
    """A continue-training case's checkpoint knob must name a folder under the data dir
    (whether the folder is there is known on the hosts only: the case says so at its start)."""
    if not isinstance(declared, Mapping):
        return []
    knob, writer = declared.get("knob", "checkpoint"), declared.get("written_by", "its pretraining case")
    value = values.get(knob)
    how = (f"{writer} writes one with --set save_checkpoint=<data dir>/<folder> "
           f"(docs/adding-a-case.md, continue-training cases)")
    if not isinstance(value, str) or not value.strip():
        return [f"{where}: {knob} = {value!r}: this case continues training from a checkpoint "
                f"and none is named: set {knob} to its folder under the data dir; {how}"]
    parts = PurePosixPath(value).parts
    if PurePosixPath(value).is_absolute() or ".." in parts:
        return [f"{where}: {knob} = {value!r}: the checkpoint is read from under the case's data "
                f"dir: give a relative folder without '..'; {how}"]
    return []


def _count_problems(divides: Mapping[str, Any], values: Mapping[str, Any],
                    where: str) -> list[str]:
    """Each degree in ``divides`` must divide its count for the chosen model size."""
    problems: list[str] = []
    for name, rule in divides.items():
        degree = _degrees([name], values, where, problems).get(name)
        size = values.get(rule.get("size_knob", "model_size"))
        count = (rule.get("per_size") or {}).get(size)
        if degree and isinstance(count, int) and count % degree:
            problems.append(f"{where}: {name} {degree} does not divide the {count} "
                            f"{rule.get('count', 'units')} of model_size {size!r}: use a "
                            f"divisor of {count}")
    return problems


def _memory_problems(memory: Mapping[str, Any], values: Mapping[str, Any], world: int,
                     chip: ChipSpec, where: str) -> list[str]:
    size = values.get(memory.get("size_knob", "model_size"))
    params = (memory.get("params") or {}).get(size)
    if not isinstance(params, (int, float)) or chip.memory_bytes is None:
        return []
    per_param, said = bytes_per_param(memory.get("bytes_per_param", 16), values)
    per_chip = params * per_param
    if memory.get("sharded", True):
        per_chip /= world
    if per_chip <= chip.memory_bytes:
        return []
    need = math.ceil(params * per_param / chip.memory_bytes)
    return [f"{where}: model_size {size!r} ({params:,} parameters) needs at least "
            f"{per_chip / GIB:,.1f} GiB per chip for its training state "
            f"({memory.get('note', 'weights, gradients and optimizer state')}, "
            f"{per_param:g} bytes per parameter{said} over {world} chips), more "
            f"than the {chip.memory_bytes / GIB:,.1f} GiB of one {chip.name} ({chip.source}): "
            f"use at least {need} chips, or a chip with more memory"]


def bytes_per_param(declared: Any, values: Mapping[str, Any]) -> tuple[float, str]:
    """Bytes of training state per parameter: ``declared`` itself, or (a mapping ``{knob:
    NAME, VALUE: bytes ...}``) the bytes for the knob's value in ``values`` (a list of other
    values: the largest of theirs; 16 where the value is not listed), with the words saying
    which ("" for a plain number)."""
    if not isinstance(declared, Mapping):
        return float(declared), ""
    knob = declared.get("knob")
    value = values.get(knob) if isinstance(knob, str) else None
    listed = declared.get(value) if isinstance(value, str) else None
    if isinstance(listed, (int, float)) and not isinstance(listed, bool):
        return float(listed), f" with {knob} {value!r}"
    if isinstance(listed, (list, tuple)):
        figures = {v: declared.get(v) for v in listed}
        numbers = {v: float(f) for v, f in figures.items()
                   if isinstance(f, (int, float)) and not isinstance(f, bool)}
        if numbers and len(numbers) == len(figures):
            largest = max(numbers, key=lambda v: numbers[v])
            return numbers[largest], f" with {knob} {value!r} (its largest: {largest!r}'s)"
    return 16.0, f" ({knob} {value!r} has no figure of its own: 16 assumed)"
