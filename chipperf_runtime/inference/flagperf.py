"""FlagPerf's inference config files, read into chipperf's keys.

FlagPerf keeps a case's settings in ``configs/<model>/configurations.yaml`` (the common keys),
``parameters.yaml`` (the model's own) and ``vendor_config/<vendor>_configurations.yaml``.
``translate(name, data)`` maps one such file onto chipperf's keys and says, per key, what it
did: ``(overrides, notes, problems)``. The mapping:

    batch_size          -> batch_size
    fp16: true / false  -> precision: fp16 / fp32
    compiler            -> engine (tensorrt -> tensorrt, onnxruntime -> onnxruntime,
                           inductor -> compile, null / torch / pytorch -> eager; a vendor's own
                           compiler xtcl, ixrt, macart, zxrt, hx_infexec -> the engine of that
                           name (vendor_engines.py); torchtrt is an error naming it; any other
                           is an error)
    flops               -> flops_per_item (a number, or FlagPerf's product form "2*512*0.33e9")
    repeat              -> offline_passes (FlagPerf: passes over the data set in one run)
    exist_onnx_path     -> onnx_file
    ntrain              -> few_shots (Aquila_7b_mmlu's name for the MMLU shots)
    resnet50_fuse, vm_enable, build_config, disabled_pass (xtcl), zixiao_test_batch_size
    (zxrt)              -> engine_options.<key>, where the case has engine_options
    (parameters.yaml)   a key that the case's configuration.yaml also has -> that key

Every other key has no meaning here and gets a note saying why (it is ignored, never an
error, so FlagPerf's files load unchanged).
"""

from __future__ import annotations

import math
from typing import Any, Mapping

from chipperf_runtime.inference.vendor_engines import VENDOR_ENGINES

COMPILERS = {"tensorrt": "tensorrt", "onnxruntime": "onnxruntime", "ort": "onnxruntime",
             "torch": "eager", "pytorch": "eager", "eager": "eager",
             # FlagPerf inference_engine/nvidia/inductor.py: torch.compile (its default backend)
             "inductor": "compile",
             # FlagPerf's vendor engines (inference/inference_engine/<vendor>/<name>.py,
             # @1b5a030): chipperf's adapters of the same names
             **{name: name for name in VENDOR_ENGINES}}
# FlagPerf's engines that chipperf does not implement: compiler name -> what it is
VENDOR_COMPILERS = {
    "torchtrt": "NVIDIA's Torch-TensorRT",
}
# FlagPerf vendor-config keys that only a vendor's engine reads (its inference_engine/<vendor>/
# module, @1b5a030): passed to that engine as engine_options.<key> where the case has the key
ENGINE_KEYS = ("resnet50_fuse", "vm_enable", "build_config", "disabled_pass",
               "zixiao_test_batch_size")
ENGINE_OPTIONS = "engine_options"
# FlagPerf keys with no meaning here -> why
IGNORED = {
    "num_workers": "pre-processing runs on the host in the case process (no DataLoader workers)",
    "log_freq": "progress is the PerfLog events",
    "no_validation": "the accuracy pass against the fp32 eager reference always runs",
    "exist_compiler_path": "engines are built in every run (no cached engine file is read)",
    "trt_tmp_path": "TensorRT engines are built in a temporary directory",
    "has_dynamic_axis": "ONNX exports and TensorRT profiles always have a dynamic batch axis",
    "torchtrt_full_compile": "there is no Torch-TensorRT engine; use engine: tensorrt or compile",
    "weights": "nothing is downloaded: give a torch.save()d state dict as checkpoint "
               "(null: random weights with a fixed seed)",
}
# FlagPerf keys that one case names differently -> the key of the case's configuration.yaml
ALIASES = {"ntrain": "few_shots"}
FILES = ("configurations.yaml", "parameters.yaml")
VENDOR_SUFFIX = "_configurations.yaml"


def translate(source: str, data: Mapping[str, Any], case_keys: Mapping[str, Any]
              ) -> tuple[dict, list[str], list[str]]:
    """``data`` of FlagPerf's file ``source`` -> (chipperf overrides, notes, problems)."""
    out: dict = {}
    notes: list[str] = []
    problems: list[str] = []
    for key, value in data.items():
        mapped, problem = _map(key, value, case_keys)
        if problem:
            problems.append(f"{source}: {key}: {problem}")
        elif mapped:
            options = {**out.get(ENGINE_OPTIONS, {}), **mapped.get(ENGINE_OPTIONS, {})}
            out.update(mapped)
            if options:
                out[ENGINE_OPTIONS] = options
        else:
            why = IGNORED.get(key, "chipperf has no such setting for this case")
            notes.append(f"{source}: FlagPerf key {key!r} has no meaning here ({why}); ignored")
    return out, notes, problems


def _map(key: str, value: Any, case_keys: Mapping[str, Any]) -> tuple[dict, str]:
    if key == "fp16":
        if not isinstance(value, bool):
            return {}, f"expected true or false, got {value!r}"
        return {"precision": "fp16" if value else "fp32"}, ""
    if key == "compiler":
        name = "eager" if value is None else str(value).lower()
        if name in VENDOR_COMPILERS:
            return {}, (f"engine {name} is {VENDOR_COMPILERS[name]}, not available in chipperf: "
                        f"set compiler to one of {', '.join(sorted(COMPILERS))} (or engine: in "
                        "chipperf's configuration files)")
        if name not in COMPILERS:
            return {}, (f"compiler {value!r} has no engine in chipperf: set compiler to one of "
                        f"{', '.join(sorted(COMPILERS))} (or engine: in chipperf's "
                        "configuration files)")
        return {"engine": COMPILERS[name]}, ""
    if key == "flops":
        flops = product(value)
        return ({}, f"expected a number or a product like 2*512*0.33e9, got {value!r}") \
            if flops is None else ({"flops_per_item": flops}, "")
    if key == "repeat":
        return {"offline_passes": value}, ""
    if key in ENGINE_KEYS and ENGINE_OPTIONS in case_keys:
        return {ENGINE_OPTIONS: {key: value}}, ""
    if key == "exist_onnx_path":
        return {"onnx_file": value}, ""
    if ALIASES.get(key) in case_keys:
        return {ALIASES[key]: value}, ""
    if key in case_keys and key not in IGNORED:
        return {key: value}, ""
    return {}, ""


def product(value: Any) -> float | None:
    """``6.16e10``, ``"6.16e10"`` (YAML 1.1 reads it as text) or ``"2*512*0.33e9"``."""
    if isinstance(value, bool):
        return None
    try:
        factors = [float(part) for part in str(value).split("*")]
    except ValueError:
        return None
    result = math.prod(factors)
    return result if result > 0 and math.isfinite(result) else None
