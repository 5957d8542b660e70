"""A case knob whose value needs a package the case's image does not install, found at plan
time (t5_3b's ``zero_stage`` > 0 needs DeepSpeed; the shipped pytorch images lack it).

A standard case folder's ``case.yaml`` declares them::

    image_needs:
      - knob: zero_stage          # a knob of config/_base.py
        except: [0]               # the values that need nothing more
        module: deepspeed         # what the case imports for the other values
        distributions: [deepspeed]   # the pip distributions that install it
        what: DeepSpeed ZeRO      # in the message

The value is the case's as it will run: ``_base.py``, the vendor config, then the test
config's OVERRIDES. What the image has is read as for engines (``chipperf.plan.engines``): its
folder's ``requirements*.txt``, the vendor case's ``config/requirements.txt`` (an image layer)
and the modules its Dockerfile's check line imports. The message names the fix: the package in
the vendor case's requirements.txt, pinned as another image folder of the vendor pins it (cpu:
``deepspeed_0.19``), or a value that needs nothing.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from chipperf.plan.engines import image_installs, requirement_lines

NEED_KEYS = {"knob", "except", "module", "distributions", "what"}


def image_needs_problems(needs: Any, values: Mapping[str, Any], image: Path,
                         requirements: Iterable[Path], fix: "NeedFix", where: str) -> list[str]:
    """Each ``image_needs`` entry of case.yaml whose knob's value in ``values`` needs a module
    that the image folder ``image`` and the extra ``requirements`` files do not install."""
    files = list(requirements)
    problems = []
    for need in needs or ():
        if not isinstance(need, Mapping) or set(need) != NEED_KEYS:
            problems.append(f"{where}: case.yaml image_needs entry {need!r}: give exactly "
                            f"{', '.join(sorted(NEED_KEYS))}")
            continue
        value = values.get(need["knob"])
        if value is None or value in need["except"]:
            continue
        if not image_installs(need["module"], need["distributions"], image, files):
            problems.append(_problem(need, value, image, fix, where))
    return problems


class NeedFix:
    """Where the fix goes: the vendor case's requirements.txt, and the vendor's other image
    folders (one of them may pin the package already)."""

    def __init__(self, vendor_case: Path, vendor_images: Mapping[str, Path]) -> None:
        self.requirements = vendor_case / "config" / "requirements.txt"
        self.vendor_images = vendor_images

    def pinned(self, distributions: Iterable[str]) -> str:
        """' (pinned as folder F pins it: LINE)' for the first image folder listing one of
        ``distributions``; '' when none does."""
        for folder, path in sorted(self.vendor_images.items()):
            for line in requirement_lines(path, set(distributions)):
                return f" ({line}, as image folder {folder} pins it)"
        return ""


def _problem(need: Mapping[str, Any], value: object, image: Path, fix: NeedFix,
             where: str) -> str:
    allowed = " or ".join(f"{need['knob']} = {v!r}" for v in need["except"])
    return (f"{where}: {need['knob']} = {value!r} needs {need['what']} (module "
            f"{need['module']!r}), which image folder {image} does not install (not in its "
            f"requirements*.txt nor {fix.requirements}, nor imported in its Dockerfile's check "
            f"line): add {need['distributions'][0]}{fix.pinned(need['distributions'])} to "
            f"{fix.requirements} (an image layer over {image.name}), or set {allowed}")
