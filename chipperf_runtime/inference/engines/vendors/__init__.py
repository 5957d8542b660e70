"""The vendors' own inference engines (FlagPerf's inference_engine/<vendor>/<compiler>.py):
engine name -> adapter class. What each needs and drives: ``inference/vendor_engines.py``."""

from __future__ import annotations

from chipperf_runtime.inference.engines.vendors.hx_infexec import HxInfexecEngine
from chipperf_runtime.inference.engines.vendors.ixrt import IxrtEngine
from chipperf_runtime.inference.engines.vendors.macart import MacaRtEngine
from chipperf_runtime.inference.engines.vendors.xtcl import XtclEngine
from chipperf_runtime.inference.engines.vendors.zxrt import ZxrtEngine

ADAPTERS = {engine.name: engine for engine in (XtclEngine, IxrtEngine, MacaRtEngine, ZxrtEngine,
                                               HxInfexecEngine)}
