"""Megatron-Core as an implementation of chipperf's LLM cases, chosen per case.

llama3_8B, llama3_70B, mixtral_8x7B and llama2_70B (the llmtrain cases FlagPerf runs under
Megatron) have a case knob ``implementation``: ``"native"`` (the default: transformers' model,
DTensor TP + FSDP2, chipperf's loop) or ``"megatron_core"`` (Megatron-Core's GPTModel with its
local layer spec, its parallel_state for TP/PP/EP, its pipeline schedule and its optimizer:
``chipperf_runtime.training.llmtrain.megatron``). A vendor config, OVERRIDES or a case key
chooses it: FlagPerf's ``megatron_core<version>`` keys (``mixtral_8x7B:megatron_core060:...``)
run the pytorch case with ``implementation = "megatron_core"`` (``implementations.py``).

Megatron-Core runs on NVIDIA GPUs only (``VENDORS``): megatron-core 0.16.1 builds a GPTModel
on the CPU (``use_cpu_initialization``), but its schedules, RoPE and MoE dispatcher allocate on
NVIDIA's device, which a CPU torch does not have (the errors: docs/flagperf-names.md). The plan
refuses a Megatron-Core case on the cpu vendor (a host without a GPU). A FlagPerf Megatron-Core
key on a vendor of other accelerators (FlagPerf runs that vendor's own Megatron port there:
kunlunxin's XPU, metax's C500 ...) runs the torch-native case with a note instead.
"""

from __future__ import annotations

import ast
import dataclasses
from collections.abc import Mapping

from chipperf.config.model import CaseEntry
from chipperf_runtime.device import DEVICE_KINDS
from chipperf_runtime.training.llmtrain.implementation import KNOB, MEGATRON_CORE, NATIVE
from chipperf_runtime.vendors import get_vendor, vendor_names

__all__ = ["KNOB", "MEGATRON_CORE", "NATIVE", "chosen", "is_megatron_core", "key_args", "note",
           "native_note", "other_accelerator", "problems", "recorded"]
FRAMEWORK_PREFIX = "megatron_core"      # FlagPerf's framework strings: megatron_core060, ...
# The vendors whose chips run Megatron-Core: its wheels and schedules target NVIDIA's GPUs. The
# compatible builds of other vendors (metax, iluvatar, dcu, amd) run FlagPerf's vendor ports of
# Megatron, which chipperf does not carry.
VENDORS = ("nvidia",)


def is_megatron_core(framework: str) -> bool:
    """Whether a case key's framework is FlagPerf's Megatron-Core (``megatron_core060``)."""
    return framework.startswith(FRAMEWORK_PREFIX)


def other_accelerator(vendor: str) -> bool:
    """Whether ``vendor``'s chips are accelerators that do not run Megatron-Core."""
    return vendor in vendor_names() and vendor not in VENDORS and \
        DEVICE_KINDS[get_vendor(vendor).device].is_accelerator


def key_args() -> tuple[str, ...]:
    """The case arguments a Megatron-Core key runs its pytorch case with."""
    return ("--set", f"{KNOB}={MEGATRON_CORE!r}")


def chosen(entry: CaseEntry, overrides: Mapping[str, object],
           knobs: Mapping[str, object]) -> str:
    """The implementation a case runs: its key's ``--set``, else OVERRIDES, else the knobs
    (``_base.py`` under the vendor config); ``native`` for a case without the knob."""
    sets = [a.split("=", 1)[1] for a in entry.case_args if a.startswith(f"{KNOB}=")]
    if sets:
        return str(ast.literal_eval(sets[-1]))
    return str(overrides.get(KNOB, knobs.get(KNOB, NATIVE)))


def problems(entry: CaseEntry, vendor: str, overrides: Mapping[str, object],
             knobs: Mapping[str, object], where: str) -> list[str]:
    """Why a case cannot run Megatron-Core here ([] when it does not ask for it)."""
    if chosen(entry, overrides, knobs) != MEGATRON_CORE:
        return []
    if KNOB not in knobs:
        return [f"{where}: implementation {MEGATRON_CORE!r}: case {entry.key.model!r} has no "
                "Megatron-Core build (llama3_8B, llama3_70B, mixtral_8x7B and llama2_70B have "
                "one): use its pytorch case as it is"]
    merged = {**knobs, **overrides}
    split = [f"{k} = {merged[k]!r}" for k, on in (
        ("context_parallel", merged.get("context_parallel", 1) not in (None, 1)),
        ("sequence_parallel", merged.get("sequence_parallel") is True)) if on]
    if split:
        return [f"{where}: implementation {MEGATRON_CORE!r} runs without context and sequence "
                f"parallelism ({', '.join(split)}): set context_parallel = 1 and "
                f"sequence_parallel = False, or implementation = {NATIVE!r}"]
    saves = [k for k in ("checkpoint", "save_checkpoint") if merged.get(k)]
    if saves:
        return [f"{where}: implementation {MEGATRON_CORE!r} neither loads nor writes chipperf's "
                f"checkpoints ({' and '.join(f'{k} = {merged[k]!r}' for k in saves)}): run the "
                f"case with implementation = {NATIVE!r}, or set those to \"\""]
    if vendor not in VENDORS:
        return [f"{where}: implementation {MEGATRON_CORE!r} runs on NVIDIA GPUs only (Megatron-"
                f"Core's schedules allocate on NVIDIA's device) and vendor {vendor!r} runs on "
                f"{_device(vendor)}: run the key on an nvidia host, or set implementation = "
                f"{NATIVE!r} (chipperf's torch-native case)"]
    return []


def note(key: str, framework: str) -> str:
    """The implementation a Megatron-Core key runs, into the plan, run.json and SUBMIT_INFO."""
    return (f"{key}: FlagPerf's framework {framework!r} runs Megatron-Core; planned as chipperf's "
            f"pytorch case with implementation = {MEGATRON_CORE!r} (Megatron-Core's GPTModel, "
            "local layer spec, parallel_state and pipeline schedule): its figures are compared "
            "only with other Megatron-Core runs, never with the torch-native case's")


def recorded(entry: CaseEntry, overrides: Mapping[str, object],
             knobs: Mapping[str, object]) -> CaseEntry:
    """``entry`` whose config (a vendor config, OVERRIDES) chose Megatron-Core, with a note
    saying so in place of any other (a FlagPerf Megatron-LM key's torch-native note); a
    Megatron-Core key's own note and any other entry as they are."""
    if chosen(entry, overrides, knobs) != MEGATRON_CORE or entry.case_args[-2:] == key_args():
        return entry
    return dataclasses.replace(entry, implementation=(
        f"{entry.key}: the config sets implementation = {MEGATRON_CORE!r}: Megatron-Core's "
        "GPTModel, local layer spec, parallel_state and pipeline schedule; its figures are "
        "compared only with other Megatron-Core runs, never with the torch-native case's"))


def native_note(key: str, framework: str, vendor: str) -> str:
    """What a Megatron-Core key runs on a vendor of other accelerators."""
    return (f"{key}: FlagPerf's framework {framework!r} runs Megatron-Core, which runs on NVIDIA "
            f"GPUs only (vendor {vendor!r} runs on {_device(vendor)}; FlagPerf runs the "
            f"vendor's Megatron port); "
            f"planned as chipperf's torch-native pytorch case: the figures are not comparable "
            f"with FlagPerf's megatron results")


def _device(vendor: str) -> str:
    """A vendor's device as the refusals name it: ``'cpu' (host CPU cores)``."""
    if vendor not in vendor_names():
        return "an unknown device"
    kind = DEVICE_KINDS[get_vendor(vendor).device]
    return f"{kind.name!r} ({kind.what})"
