"""Vendor ``hexaflake``: Hexaflake's accelerator cards, reached only through Hexaflake's
inference executor (``tcinfer`` over ``libtcinfer.so``): engine ``hx_infexec``.

FlagPerf (FlagOpen/FlagPerf@1b5a0303) runs hexaflake for inference only
(``inference/run_hexaflake.py``, framework ``pytorch_foo`` on the unpublished base image
``hexaflake_rocky:master.996``), feeding its SDK host arrays: so chipperf names no PyTorch
device for it (``only_engine``), PyTorch's part of a case runs on the host CPU, and an engine
other than hx_infexec is refused.

Container options: FlagPerf starts every inference container ``--privileged`` and names no
device nodes or visible-devices variable for hexaflake; neither does this module. Telemetry:
FlagPerf's monitor pipes ``hxsmi`` through grep and awk by column; no sample of its output is
published, so chipperf has no sampler for it (the cpu and memory monitors still run).
"""

from chipperf_runtime.vendors.base import ChipSpec, Vendor

CHIPS = {
    # FlagPerf names no Hexaflake chip or card anywhere (its README rows, image and monitor
    # carry none), and no Hexaflake datasheet was found. "hexaflake_card" is a label for a case
    # key, not a product name; every figure unknown. (hexaflake_analysis.py returns 30e12 /
    # 120e12 peaks copied from another vendor's analyser: not a spec sheet.)
    "hexaflake_card": ChipSpec("hexaflake_card",
                               source="a label: FlagPerf names no Hexaflake chip and no datasheet "
                                      "was found; every figure unknown"),
}


def _container_options(nproc: int) -> str:
    return "--privileged --ulimit stack=67108864"


VENDOR = Vendor(
    name="hexaflake",
    visible_devices_env=None,
    chips=CHIPS,
    container_options=_container_options,
    device="cpu",
    only_engine="hx_infexec",
)
