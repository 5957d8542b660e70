"""Framework strings -> a vendor's image folder (``<suite>/<vendor>/docker_image/<folder>``).

A case key's framework names its image folder. FlagPerf's keys name FlagPerf's folders
(``pytorch_1.8``, ``tensorflow2``, ``deepspeed``, ``paddle_2.5.1``, ``ngctorch2403``), which a
chipperf vendor may not have. With ``FRAMEWORK_MATCH = "nearest"`` (the default) such a
string resolves to the vendor's nearest folder of the same family, with a warning naming
both; with ``"exact"`` it is refused with the list of folders.

Nearest: the folders of the same family (the part before ``_`` or ``-``; NGC's ``ngctorch<yymm>``
and FlagPerf's ``megatron_core<version>`` are PyTorch: Megatron-Core is a PyTorch library, run
as chipperf's pytorch case with ``implementation = "megatron_core"``, see
``chipperf.config.megatron_core``; FlagPerf's ``in_container`` is a family of its own, planned
as the pytorch case by ``chipperf.config.implementations``); among them the one whose version
is closest, compared part by part from the left (``pytorch_1.8`` -> ``pytorch_1.13`` before
``pytorch_2.13``); with no version in the string, the newest folder.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterable, Optional

from chipperf_runtime.device import torch_xla_framework

MODES = ("nearest", "exact")
_NGC_TORCH = re.compile(r"^ngctorch\d*$")
_MEGATRON_CORE = re.compile(r"^megatron_core[\d.]*$")
# FlagPerf's ``<case>-in_container`` folders (training/<vendor>/aquila2_7B_container-in_container/):
# a launch (FlagScale in the vendor's running container), whole, not ``in`` + a version
IN_CONTAINER = "in_container"


@dataclass(frozen=True)
class ImageChoice:
    folder: Optional[str]   # None: no folder can be used
    note: str = ""          # what was chosen instead of an exact match, or why none was


def family(framework: str) -> str:
    """The launcher / case-code family of a framework string."""
    if _MEGATRON_CORE.match(framework):
        return "pytorch"
    if framework == IN_CONTAINER:
        return IN_CONTAINER
    name = re.split(r"[_-]", framework, maxsplit=1)[0]
    return "pytorch" if _NGC_TORCH.match(name) else name


def version(framework: str) -> tuple[int, ...]:
    """The version in a framework string (``paddle_2.5.1`` -> (2, 5, 1)); () when it has none."""
    match = re.search(r"[_-]v?(\d+(?:\.\d+)*)$", framework)
    return tuple(int(p) for p in match[1].split(".")) if match else ()


def choose_folder(framework: str, folders: Iterable[str], mode: str) -> ImageChoice:
    """The image folder for ``framework`` among a vendor's ``folders``."""
    folders = sorted(set(folders))
    if framework in folders:
        return ImageChoice(framework)
    listing = ", ".join(folders) or "none"
    if mode == "exact":
        return ImageChoice(None, f"FRAMEWORK_MATCH is 'exact' and there is no folder "
                                 f"{framework!r}: the vendor's folders are {listing}")
    # torch_xla's folders (pytorch_xla_<version>) stand apart from the eager PyTorch ones:
    # the nearest PyTorch folder of a FlagPerf key is never an XLA one, nor the reverse
    same = [f for f in folders if family(f) == family(framework)
            and torch_xla_framework(f) == torch_xla_framework(framework)]
    if not same:
        kind = (("torch_xla " if torch_xla_framework(framework) else "eager ")
                if family(framework) == "pytorch" else "")
        return ImageChoice(None, f"no {kind}folder of the {family(framework)!r} family: the "
                                 f"vendor's folders are {listing}")
    wanted = version(framework)
    best = min(same, key=lambda f: _distance(wanted, version(f))) if wanted else max(
        same, key=version)
    return ImageChoice(best, f"framework {framework!r} has no image folder; using the nearest, "
                             f"{best!r} (FRAMEWORK_MATCH = 'exact' refuses instead)")


def _distance(wanted: tuple[int, ...], have: tuple[int, ...]) -> tuple[int, ...]:
    width = max(len(wanted), len(have))
    padded = [(wanted + (0,) * width)[:width], (have + (0,) * width)[:width]]
    return tuple(abs(a - b) for a, b in zip(*padded))
