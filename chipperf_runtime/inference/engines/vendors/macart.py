"""Engine ``macart``: MetaX's inference runtime, ONNX Runtime with ``MACAExecutionProvider``.

As FlagPerf's ``inference/inference_engine/metax/macart.py`` (FlagOpen/FlagPerf@1b5a0303) runs
it: an ``onnxruntime.InferenceSession`` of the ONNX graph with providers
``["MACAExecutionProvider"]`` and ``device_id`` 0 (here: the rank's device index), fed host
arrays. An onnxruntime without that provider (PyPI's build) is refused naming it; a session
that fell back to another provider fails the build. fp16 runs a half-precision export, as the
``onnxruntime`` engine does. Not run by chipperf: no MetaX GPU or MACA build here
(inference/metax/README.md).
"""

from __future__ import annotations

from types import ModuleType
from typing import Any, ClassVar, Sequence

import numpy as np

from chipperf_runtime.inference.engines.vendors.adapter import HostArrayAdapter
from chipperf_runtime.inference.engines.vendors.sdk import Build, HostCall
from chipperf_runtime.inference.errors import CaseError, EngineBuildError
from chipperf_runtime.inference.vendor_engines import missing_sdk

PROVIDER = "MACAExecutionProvider"


class MacaRtEngine(HostArrayAdapter):
    name: ClassVar[str] = "macart"
    graph_precision: ClassVar[dict[str, str]] = {"fp16": "fp16"}

    def sdk(self) -> ModuleType:
        ort = super().sdk()
        available = ort.get_available_providers()
        if PROVIDER not in available:
            raise CaseError(missing_sdk(self.name, self.options.device.vendor,
                                        f"this onnxruntime offers {', '.join(available)}, "
                                        f"not {PROVIDER}"))
        return ort

    def sdk_build(self, sdk: ModuleType, path: str, precision: str) -> Build:
        session = self._session(sdk, path)
        call = _call(session)
        return lambda batch: call   # one session takes every batch size (dynamic batch axis)

    def _session(self, ort: Any, path: str) -> Any:
        index = self.options.device.device.index or 0
        try:
            session = ort.InferenceSession(path, providers=[PROVIDER],
                                           provider_options=[{"device_id": index}])
        except Exception as exc:  # noqa: BLE001 - any session failure is a build failure
            raise EngineBuildError(f"MACA's ONNX Runtime could not load {path}: {exc}: check the "
                                   "ONNX file, or use engine eager") from exc
        if session.get_providers()[0] != PROVIDER:
            raise EngineBuildError(f"ONNX Runtime fell back to {session.get_providers()[0]} "
                                   f"instead of {PROVIDER}: check the MACA runtime libraries")
        return session


def _call(session: Any) -> HostCall:
    names = [meta.name for meta in session.get_inputs()]
    output = session.get_outputs()[0].name

    def run(arrays: Sequence[np.ndarray]) -> np.ndarray:
        return session.run([output], dict(zip(names, arrays)))[0]

    return run
