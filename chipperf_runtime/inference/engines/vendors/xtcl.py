"""Engine ``xtcl``: Kunlunxin's XTCL, a TVM build with Kunlunxin's XPU passes (module ``tvm``).

The steps are the ones FlagPerf's ``inference/inference_engine/kunlunxin/xtcl.py``
(FlagOpen/FlagPerf@1b5a0303) takes, written here: the ONNX graph through
``relay.frontend.from_onnx`` with the batch fixed, built under a ``PassContext`` (opt level 3,
the vendor file's ``build_config`` and ``disabled_pass``; ``pattern_match`` becomes
``xpu_config.XPUGraphMatchConfig``) for target ``llvm -acc=xpu<N>`` (N: the last character of
``XPUSIM_DEVICE_MODEL``, KUNLUN1 when unset) as a Relay VM (``vm_enable``, default true) or a
graph executor for ``xpu -libs=xdnn``; fp16 through ``XPUOutDtypeConfig``; ``resnet50_fuse``
sets ``XTCL_FUSE_RES50V15=1``. One difference: FlagPerf's fp32 path sets ``XTCL_USE_FP16`` and
``XTCL_QUANTIZE_WEIGHT`` (fp16 compute, quantised weights), and its image sets both for every
run; here fp32 means fp32, so neither is set. Inputs and outputs are host arrays.
Not run by chipperf: no Kunlunxin XPU or XTCL here (inference/kunlunxin/README.md).
"""

from __future__ import annotations

import os
from types import ModuleType
from typing import Any, ClassVar, Sequence

import numpy as np

from chipperf_runtime.inference.engines.vendors.adapter import HostArrayAdapter
from chipperf_runtime.inference.engines.vendors.sdk import (
    Build,
    HostCall,
    load_onnx,
    load_sdk,
    onnx_inputs,
)

XPU_CONFIG = "tvm.contrib.xpu_config"                               # XTCL only
XPU_TARGET = "xpu -libs=xdnn -split-device-funcs -device-type=xpu2"   # the graph executor's


class XtclEngine(HostArrayAdapter):
    name: ClassVar[str] = "xtcl"

    def sdk(self) -> ModuleType:
        """``tvm``, and XTCL's own ``tvm.contrib.xpu_config`` (upstream TVM lacks it)."""
        tvm = super().sdk()
        load_sdk(self.name, self.options.device.vendor, XPU_CONFIG)
        return tvm

    def sdk_build(self, sdk: ModuleType, path: str, precision: str) -> Build:
        xpu_config = load_sdk(self.name, self.options.device.vendor, XPU_CONFIG)
        onnx = load_onnx(self.name)
        self._set_environment()

        def build(batch: int) -> HostCall:
            inputs = onnx_inputs(path, onnx)
            shapes = {name: [batch, *shape[1:]] for name, shape, _ in inputs}
            mod, params = sdk.relay.frontend.from_onnx(onnx.load(path), shapes)
            executor = self._compile(sdk, xpu_config, mod, params, precision)
            return _call(executor, [name for name, _, _ in inputs], self._vm())

        return build

    def _vm(self) -> bool:
        return bool(self.option("vm_enable", True))

    def _set_environment(self) -> None:
        os.environ["XTCL_USE_NEW_ALTER_PASS"] = "1"
        if self.option("resnet50_fuse", False):
            os.environ["XTCL_FUSE_RES50V15"] = "1"

    def _pass_config(self, xpu_config: Any, precision: str) -> dict:
        config = dict(self.option("build_config", {}) or {})
        if "pattern_match" in config:
            config["XPUFuzzyMatch"] = xpu_config.XPUGraphMatchConfig(
                pattern_match=config.pop("pattern_match")).value()
        if precision == "fp16":
            config["XPUOutDtypeConfig"] = xpu_config.XPUOutDtypeConfig(
                default_precision="float16", config_last_node=True, config_map={}).value()
        return config

    def _compile(self, tvm: Any, xpu_config: Any, mod: Any, params: Any, precision: str) -> Any:
        model = os.environ.get("XPUSIM_DEVICE_MODEL", "KUNLUN1")
        target = f"llvm -acc=xpu{model[-1]}"
        ctx = tvm.device("xpu", 0)
        with tvm.transform.PassContext(opt_level=3, config=self._pass_config(xpu_config, precision),
                                       disabled_pass=list(self.option("disabled_pass", []) or [])):
            if self._vm():
                from tvm.runtime.vm import VirtualMachine

                compiled = tvm.relay.backend.vm.compile(mod, target=target, target_host=target,
                                                        params=params)
                return VirtualMachine(compiled, ctx)
            from tvm.contrib import graph_executor

            graph, lib, built = tvm.relay.build(mod, target=XPU_TARGET, params=params)
            executor = graph_executor.create(graph, lib, ctx)
            executor.set_input(**built)
            return executor


def _call(executor: Any, names: Sequence[str], vm: bool) -> HostCall:
    def run(arrays: Sequence[np.ndarray]) -> np.ndarray:
        for name, array in zip(names, arrays):
            if vm:
                executor.set_one_input("main", name, array)
            else:
                executor.set_input(name, array)
        executor.run()
        return executor.get_output(0).numpy()

    return run
