"""Engine ``zxrt``: Tencent Zixiao's runtime through its ``TopsInference`` Python package.

The steps of FlagPerf's ``inference/inference_engine/zixiao/zxrt.py`` (FlagOpen/FlagPerf@1b5a0303),
written here: ``TopsInference.set_device(card, -1)`` (FlagPerf hard-codes card 4; here
``engine_options.card_id``, default 0), an ONNX parser given the input names, dtypes
(``DT_FLOAT16`` for fp16) and shapes with the batch set to the device batch
(``zixiao_test_batch_size``, FlagPerf's resnet50 sets 32), an optimizer (``KFP16_MIX`` for
fp16) that builds the engine, saved and loaded back as ``<onnx>.bin``. A batch runs as slices
of the device batch spread over 12 streams (``runV2(..., py_stream=)``), then gathered: FlagPerf's
"6 compute cells" scheme. A last slice shorter than the device batch is padded with repeats
whose outputs are dropped. Inputs and outputs are host arrays.
Not run by chipperf: no Zixiao card or TopsInference here (inference/zixiao/README.md).
"""

from __future__ import annotations

from types import ModuleType
from typing import Any, ClassVar, Sequence

import numpy as np

from chipperf_runtime.inference.engines.vendors.adapter import HostArrayAdapter
from chipperf_runtime.inference.engines.vendors.sdk import Build, HostCall, load_onnx, onnx_inputs

STREAMS = 12          # FlagPerf's zxrt.py: 12 streams
ONNX_FLOAT = 1        # onnx.TensorProto.FLOAT
# ONNX element type -> TopsInference dtype name (FlagPerf's type2dtype)
DTYPES = {1: "DT_FLOAT32", 7: "DT_INT64", 6: "DT_INT32", 3: "DT_INT8", 4: "DT_UINT8",
          9: "DT_BOOL", 10: "DT_FLOAT16"}


class ZxrtEngine(HostArrayAdapter):
    name: ClassVar[str] = "zxrt"

    def input_dtype(self, precision: str) -> Any:
        return np.float16 if precision == "fp16" else np.float32

    def sdk_build(self, sdk: ModuleType, path: str, precision: str) -> Build:
        sdk.set_device(int(self.option("card_id", 0)), -1)
        device_batch = int(self.option("zixiao_test_batch_size", 32))
        inputs = onnx_inputs(path, load_onnx(self.name))

        def build(batch: int) -> HostCall:
            slice_size = min(batch, device_batch)
            engine = self._engine(sdk, path, inputs, slice_size, precision)
            streams = [sdk.create_stream() for _ in range(STREAMS)]
            return _sliced(engine, streams, slice_size)

        return build

    def _engine(self, tops: Any, path: str, inputs: list, batch: int, precision: str) -> Any:
        parser = tops.create_parser(tops.ONNX_MODEL)
        parser.set_input_names([name for name, _, _ in inputs])
        parser.set_input_dtypes([self._dtype(tops, kind, precision) for _, _, kind in inputs])
        parser.set_input_shapes([[batch, *shape[1:]] for _, shape, _ in inputs])
        optimizer = tops.create_optimizer()
        if precision == "fp16":
            optimizer.set_build_flag(tops.KFP16_MIX)
        engine = optimizer.build(parser.read(path))
        executable = f"{path}.b{batch}.bin"
        engine.save_executable(executable)
        return tops.load(executable)

    @staticmethod
    def _dtype(tops: Any, kind: int, precision: str) -> Any:
        if kind == ONNX_FLOAT and precision == "fp16":
            return tops.DT_FLOAT16
        return getattr(tops, DTYPES[kind])


def _sliced(engine: Any, streams: Sequence[Any], size: int) -> HostCall:
    def run(arrays: Sequence[np.ndarray]) -> np.ndarray:
        total = arrays[0].shape[0]
        futures = [engine.runV2([_slice(a, start, size) for a in arrays],
                                py_stream=streams[i % len(streams)])
                   for i, start in enumerate(range(0, total, size))]
        outputs = [np.asarray(future.get()[0]) for future in futures]
        return np.concatenate(outputs)[:total]

    return run


def _slice(array: np.ndarray, start: int, size: int) -> np.ndarray:
    """``size`` items from ``start``; a short last slice padded with copies of its last item."""
    part = array[start:start + size]
    if len(part) == size:
        return np.ascontiguousarray(part)
    pad = np.repeat(part[-1:], size - len(part), axis=0)
    return np.ascontiguousarray(np.concatenate([part, pad]))
