"""FlagPerf's Megatron-LM / FlagScale / DeepSpeed LLM case keys -> chipperf's torch-native case of the
same model, with the implementation difference carried as a note.

FlagPerf runs ``llama3_8B:megatron_core060:...`` with Megatron-LM, chipperf with its own
``llama3_8B/pytorch`` case (DTensor tensor parallel + FSDP2). Such a key is planned as the
pytorch case (the vendor's newest pytorch image folder, chipperf's vendor config for the
topology); its ``CaseEntry.implementation`` says what differs (``implementation_note``), and
the plan, run.json, the case's SUBMIT_INFO, reports and ``chipperf compare`` show it, so a
Megatron figure and a chipperf figure are never compared silently. A key of a model with no
torch-native case stays as written (refused for its framework at plan time).

FlagPerf's Megatron-Core keys (``mixtral_8x7B:megatron_core060:...``) are the pytorch family
(``chipperf.frameworks``) and run Megatron-Core itself: the pytorch case with
``implementation = "megatron_core"`` (``chipperf.config.megatron_core``), the key as written.
Megatron-Core runs on NVIDIA GPUs only: on a vendor whose chips are other accelerators
(kunlunxin's XPU, metax's C500, ...: FlagPerf runs the vendor's own Megatron port there) the key
runs the torch-native case with a note saying so; on the cpu vendor the plan refuses it.
"""

from __future__ import annotations

import dataclasses

from chipperf.config import megatron_core
from chipperf.config.flagperf_aliases import FLAGPERF_IMPLEMENTATIONS, TORCH_NATIVE, implementation_note
from chipperf.config.model import CaseEntry, TestConfig
from chipperf.frameworks import choose_folder
from chipperf.suites.catalogue import Catalogue


def torch_native(test: TestConfig, catalogue: Catalogue) -> TestConfig:
    """``test`` with every FlagPerf implementation key that chipperf can run as its
    torch-native case replaced by that case (and its note). A key whose replacement is
    already listed (FlagPerf lists one model and topology under megatron and flagscale) stays
    as written, so it is refused for its framework rather than run twice."""
    if not catalogue.suite.trains:   # FlagPerf's implementations are training frameworks
        return test
    entries: list[CaseEntry] = []
    taken = {str(e.key) for e in test.cases}
    for entry in test.cases:
        native = _entry(entry, test.vendor, catalogue)
        if native.key != entry.key and str(native.key) in taken:
            native = entry
        taken.add(str(native.key))
        entries.append(native)
    return dataclasses.replace(test, cases=tuple(entries))


def _entry(entry: CaseEntry, vendor: str, catalogue: Catalogue) -> CaseEntry:
    key = entry.key
    if megatron_core.is_megatron_core(key.framework) and (key.model, key.family) in catalogue.cases:
        if megatron_core.other_accelerator(vendor):   # FlagPerf's vendor Megatron: run natively
            return dataclasses.replace(entry, implementation=megatron_core.native_note(
                str(key), key.framework, vendor))
        return dataclasses.replace(
            entry, case_args=entry.case_args + megatron_core.key_args(),
            implementation=megatron_core.note(str(key), key.framework))
    if key.family not in FLAGPERF_IMPLEMENTATIONS or (key.model, TORCH_NATIVE) not in catalogue.cases \
            or (key.model, key.family) in catalogue.cases:   # chipperf runs that framework itself
        return entry
    folders = [folder for (v, folder) in catalogue.images if v == vendor]
    framework = choose_folder(TORCH_NATIVE, folders, "nearest").folder or TORCH_NATIVE
    note = f"{key}: {implementation_note(key.framework, key.family)}"
    return dataclasses.replace(entry, key=dataclasses.replace(key, framework=framework),
                               implementation=note)
