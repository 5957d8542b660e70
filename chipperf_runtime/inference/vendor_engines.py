"""The vendors' own inference engines, as data both programs read (standard library only).

FlagPerf (FlagOpen/FlagPerf@1b5a0303, ``inference/inference_engine/<vendor>/<compiler>.py``)
runs five vendors' inference through their own SDKs; chipperf has an adapter for each
(``chipperf_runtime/inference/engines/vendors/``). This table is what the engine side needs to
know of them without importing torch: the vendor whose chip the engine drives, the SDK module
the adapter imports (its real name) and what installs it. The plan refuses an engine of
another vendor (``vendor_engine_problems``) and one whose SDK the image does not list
(``chipperf/plan/engines.py``); the adapter refuses a missing SDK with ``missing_sdk``.

``host_fed``: the SDK takes host (numpy) arrays and owns the accelerator itself, as FlagPerf's
XTCL, ZXRT and hx_infexec images run it (PyTorch there is a CPU build): PyTorch's part of the
case (pre-processing, the fp32 reference) then runs on the host CPU, and the case says so.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, Sequence


@dataclass(frozen=True)
class VendorEngine:
    name: str                         # the engine (FlagPerf's compiler) name
    vendor: str                       # the one vendor whose chip it drives
    sdk: str                          # the SDK's product name
    module: str                       # the Python module the adapter imports
    distributions: tuple[str, ...]    # what installs that module (pip names; may be empty)
    install: str                      # how to get it (what FlagPerf's image folder says)
    host_fed: bool = False


_FLAGPERF = "FlagOpen/FlagPerf@1b5a0303 inference/docker_images"

VENDOR_ENGINES: Mapping[str, VendorEngine] = {e.name: e for e in (
    VendorEngine("xtcl", "kunlunxin", "Kunlunxin XTCL (its TVM-based compiler)", "tvm",
                 (), f"the XTCL release tarball Kunlunxin publishes ({_FLAGPERF}/kunlunxin/"
                 "pytorch_1.13/Dockerfile downloads it; inference/kunlunxin/docker_image/"
                 "pytorch_1.13 does the same), with its python/ folder on PYTHONPATH",
                 host_fed=True),
    VendorEngine("ixrt", "iluvatar", "Iluvatar IxRT (a TensorRT-compatible runtime)",
                 "tensorrt", ("ixrt",),
                 "Iluvatar's ixrt wheel and CoreX SDK, distributed by Iluvatar on request "
                 f"(contact-us@iluvatar.com, {_FLAGPERF}/iluvatar/pytorch/packages/README.md), "
                 "in the image BASE_IMAGE names"),
    VendorEngine("macart", "metax", "MetaX MACA runtime (ONNX Runtime's MACAExecutionProvider)",
                 "onnxruntime", (),
                 "MetaX's MACA PyTorch image with its ONNX Runtime build "
                 f"({_FLAGPERF}/metax/pytorch_2.0/Dockerfile: mxcr.io/library/maca-c500-pytorch)"),
    VendorEngine("zxrt", "zixiao", "Tencent Zixiao ZXRT (the TopsInference Python package)",
                 "TopsInference", ("TopsInference",),
                 "the TopsInference wheel and topsruntime / tops-sdk packages, distributed by "
                 "Tencent on request (" f"{_FLAGPERF}/zixiao/pytorch/packages/README.md), in "
                 "the image BASE_IMAGE names", host_fed=True),
    VendorEngine("hx_infexec", "hexaflake", "Hexaflake's inference executor (tcinfer, "
                 "libtcinfer.so)", "tcinfer", (),
                 f"Hexaflake's image ({_FLAGPERF}/hexaflake/pytorch_foo/Dockerfile builds on "
                 "hexaflake_rocky:master.996, not published), named by BASE_IMAGE",
                 host_fed=True),
)}


def missing_sdk(engine: str, vendor: str, error: object) -> str:
    """The one message of an adapter whose SDK is absent: SDK, vendor, what to install."""
    spec = VENDOR_ENGINES[engine]
    instead = ("" if only_engine(vendor) else "; or set engine to eager or compile")
    return (f"engine {engine!r} needs {spec.sdk}, whose Python module {spec.module!r} is not "
            f"importable here ({error}); vendor {vendor!r}: run in the vendor's image with "
            f"{spec.install}{instead}")


def vendor_engine_problems(config: Mapping, vendor: str, sources: Sequence[str],
                           vendor_file: str) -> list[str]:
    """A vendor's own engine asked for by another vendor (plan and case alike)."""
    engine = config.get("engine")
    where = ", ".join(sources) or "the case's configuration"
    only = only_engine_problem(vendor, str(engine))
    if only:
        return [f"{where}: {only}: set engine (FlagPerf: compiler) to {only_engine(vendor)} in "
                f"{vendor_file}"]
    spec = VENDOR_ENGINES.get(engine) if isinstance(engine, str) else None
    if spec is None or not vendor or vendor == spec.vendor:
        return []
    return [f"{where}: engine {engine!r} is {spec.sdk}, which drives vendor {spec.vendor!r}'s "
            f"chips only, and vendor {vendor!r} selects it: set engine (FlagPerf: compiler) to "
            f"eager, compile or onnxruntime in {vendor_file}"]


def only_engine(vendor: str) -> str | None:
    """The one engine of a vendor whose chip no framework reaches (``Vendor.only_engine``)."""
    from chipperf_runtime.vendors import get_vendor, vendor_names

    return get_vendor(vendor).only_engine if vendor in vendor_names() else None


def only_engine_problem(vendor: str, engine: str) -> str:
    """'' unless ``vendor`` has one engine and ``engine`` is another."""
    only = only_engine(vendor)
    if only is None or engine == only:
        return ""
    return (f"vendor {vendor!r} has no PyTorch device in chipperf (its chip runs only through "
            f"{VENDOR_ENGINES[only].sdk}), so engine {engine!r} would run on the host CPU under "
            f"its name; engine {only!r} drives the chip")
