"""The chip a case ran on as its nodes name it (``sys_info.json``), beside the case key's chip.

The chip in a case key is a config key: it picks the vendor config file (FlagPerf's
``config_<chip>x<nnodes>x<nproc>.py``) and the spec sheet. For the cpu vendor it is a label of
a generic config ("xeon", "epyc", "x86") whatever CPU the host has, so a run on an AMD EPYC
host with ``config_xeonx1x2.py`` is keyed "xeon". Tables therefore show the model the node
reported (the accelerator's, else the CPU's /proc/cpuinfo "model name") with the key beside
it: "AMD EPYC 7B13 64-Core Processor (xeon)" (``CaseResult.chip_label``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from chipperf.results.read.tolerant import as_dict

# Marks and clock suffixes /proc/cpuinfo adds to a model name: "Intel(R) Xeon(R) Platinum
# 8358 CPU @ 2.60GHz" -> "Intel Xeon Platinum 8358".
_NOISE = re.compile(r"\((?:R|TM|tm|r)\)|\s+CPU\s*@.*$|\s*@\s*[\d.]+\s*GHz$")


def host_chip(case_dir: Path) -> str:
    """The model the first node of ``case_dir`` that has a ``sys_info.json`` reports; ''."""
    found = sorted(case_dir.glob("round*/*_noderank*/sys_info.json")) or \
        sorted(case_dir.glob("*_noderank*/sys_info.json"))
    for path in found:
        try:
            info = json.loads(path.read_text())
        except (OSError, ValueError):
            continue
        model = chip_model(as_dict(info))
        if model:
            return model
    return ""


def chip_model(info: Mapping[str, Any]) -> str:
    """Pure: sys_info.json -> the accelerator model when the node has accelerators, else its
    CPU model, tidied; '' when it names neither."""
    accel = as_dict(info.get("accelerators"))
    model = accel.get("model") if accel.get("count") else as_dict(info.get("cpu")).get("model")
    return " ".join(_NOISE.sub("", model).split()) if isinstance(model, str) else ""
