"""Whose chip a case key names: a key whose chip is on another vendor's spec sheets and not on
the configured vendor's cannot find a vendor case folder or config, and the plan says why in
those words instead of "no case folder" (FlagPerf's own test_conf lists MetaX's C500 under dcu
and NVIDIA's A100 under metax). The line also says FlagPerf has no config for it: FlagPerf's
vendor folders at 1b5a0303 name another vendor's chip once (`git ls-tree -r --name-only
1b5a0303 training | grep config_`: ascend's chatglm3_6b config_A100x1x8.py, which is carried, so
its key finds its config and never gets this line)."""

from __future__ import annotations

import re

from chipperf.config.model import CaseKey
from chipperf_runtime.vendors import get_vendor, vendor_names
from chipperf_runtime.vendors._chiplayout import bare_chip

# what may follow a sheet's name in a key's chip: FlagPerf's memory size (``C50080G``) or a
# variant after ``_`` (``A100_40_SXM``)
_SUFFIX = re.compile(r"(\d+G|_.*)?$", re.I)
FLAGPERF_SOURCE = "FlagOpen/FlagPerf@1b5a0303"   # the commit the vendor folders are carried from


def chip_owners(chip: str) -> dict[str, str]:
    """vendor -> its spec sheet naming ``chip`` (a layout prefix ``TP1PP1SH2SP8`` and a memory
    suffix ``80G`` are not part of the name); the longest sheet name that fits."""
    name = bare_chip(chip).lower()
    return {v: sheet for v in vendor_names() for sheet in sorted(get_vendor(v).chips, key=len)
            if name.startswith(sheet.lower()) and _SUFFIX.fullmatch(name[len(sheet):])}


def foreign_chip_problem(key: CaseKey, vendor: str, where: str) -> str | None:
    """The problem of a key whose chip only other vendors' sheets name, or None."""
    owners = chip_owners(key.chip)
    if not owners or vendor in owners:
        return None
    owner, sheet = next(iter(owners.items()))
    named = f"{sheet!r}" + (f" (the key's {key.chip!r})" if key.chip != sheet else "")
    own = ", ".join(sorted(get_vendor(vendor).chips)) or "none"
    return (f"{where}: vendor {vendor!r} has no chip {named}: chipperf's spec sheets give it to "
            f"vendor {owner!r} (chipperf_runtime/vendors/{owner}.py), and neither "
            f"training/{vendor}/ here nor FlagPerf's training/{vendor}/ ({FLAGPERF_SOURCE}, "
            f"which these folders are carried from) has a folder or config for it: run it "
            f"with VENDOR = {owner!r}, or name a {vendor} chip ({own})")
