"""Vendor ``zixiao``: Tencent's Zixiao inference cards (C100), reached only through Zixiao's
inference runtime ZXRT (the ``TopsInference`` Python package): engine ``zxrt``.

FlagPerf (FlagOpen/FlagPerf@1b5a0303) runs zixiao for inference only, in an image whose PyTorch
is a CPU build (``inference/docker_images/zixiao/pytorch/Dockerfile``: torch 1.13.0+cpu) and
whose SDK does the chip's work: so chipperf names no PyTorch device for it (``only_engine``),
PyTorch's part of a case runs on the host CPU, and an engine other than zxrt is refused.

Container options: FlagPerf starts every inference container ``--privileged``
(``inference/run.py``) and names no device nodes for zixiao; so does this module. FlagPerf
names no visible-devices variable for zixiao either: none is set. Telemetry: FlagPerf's monitor
runs ``zx-smi -dmon -s mp -i 0 -c 1`` and cuts columns by position; no sample of that output is
published, so chipperf has no sampler for it (the cpu and memory monitors still run).
"""

from chipperf_runtime.vendors.base import ChipSpec, Vendor

CHIPS = {
    # FlagPerf's inference/benchmarks/resnet50/README.md names the card "腾讯紫霄 C100" (driver
    # 2.4.12). Tencent has published no datasheet (peak FLOP/s, memory, bandwidth, TDP) that we
    # could find: The Register (2021-11-08, "Tencent Cloud boasts it's made the world's best
    # AI silicon") reports the announcement gave no architecture or figures. FlagPerf's
    # zixiao_analysis.py assumes 16 (GiB) of memory and 30e12 / 120e12 peaks copied from
    # another vendor's analyser: not a spec sheet, not carried over. Every figure unknown.
    "C100": ChipSpec("C100", source="no public datasheet: every figure unknown (FlagOpen/"
                     "FlagPerf@1b5a0303 inference/benchmarks/resnet50/README.md names the card)"),
}


def _container_options(nproc: int) -> str:
    return "--privileged --ulimit stack=67108864"


VENDOR = Vendor(
    name="zixiao",
    visible_devices_env=None,
    chips=CHIPS,
    container_options=_container_options,
    device="cpu",
    only_engine="zxrt",
)
