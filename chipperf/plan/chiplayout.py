"""Plan checks of a case key whose chip carries FlagPerf's parallel layout
(``TP2PP4SH1SP1A10040G``, chipperf_runtime/vendors/_chiplayout.py): the layout must fill the
key's nnodes x nproc ranks, and the vendor config the key names must set the same degrees
(the case trains with the config's values; a chip name saying otherwise would mislabel the
result)."""

from __future__ import annotations

from typing import Mapping

from chipperf.config.model import CaseKey
from chipperf_runtime.vendors._chiplayout import ChipLayout, layout_problems, parse_chip_layout


def chip_layout_problems(key: CaseKey, knobs: Mapping[str, object], where: str) -> list[str]:
    """Every problem of the key's chip layout (none for a plain chip name)."""
    layout = parse_chip_layout(key.chip)
    if layout is None:
        return []
    problems = [f"{where}: {p}" for p in layout_problems(layout, key.nnodes, key.nproc)]
    return problems + _disagreements(layout, knobs, f"{where}: {key.vendor_config_name}")


def _disagreements(layout: ChipLayout, knobs: Mapping[str, object], where: str) -> list[str]:
    """The layout's degrees the config sets otherwise; knobs the case does not have (a case
    without FlagPerf's degree names) are not compared."""
    return [f"{where}: {name} = {knobs[name]!r} but the chip name {layout_name(layout)} says "
            f"{value!r}: set {name} = {value!r}, or name the config after its layout"
            for name, value in layout.knobs().items()
            if name in knobs and knobs[name] != value]


def layout_name(layout: ChipLayout) -> str:
    return (f"TP{layout.tensor_parallel}PP{layout.pipeline_parallel}SH{layout.sharding_stage}"
            f"SP{layout.sharding_parallel}")
