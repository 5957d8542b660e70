"""Which engine serves: the one the configuration asks for, or the transformers engine where
vLLM cannot run and the configuration allows it (``serve_fallback: transformers``).

vLLM cannot run when its package is absent from the serving python (a vendor without a vLLM
build, or an image without it), or on an x86 processor without AVX2: vLLM 0.32's CPU build
ships kernels for AVX2 and AVX512 only (``vllm/platforms/cpu.py``, ``import_kernels``). SGLang
and TensorRT-LLM (``sglang_server``, ``trtllm_server``) serve on NVIDIA GPUs only, with no
fallback. The choice and its reason go into the run (FINISHED ``serving.sweep.served_by``).
"""

from __future__ import annotations

import platform
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Optional

from chipperf_runtime.inference.errors import CaseError
from chipperf_runtime.inference.llm.served.engines import ENGINES
from chipperf_runtime.vendors import get_vendor

# the case's engine key -> the server engine (engines.ENGINES)
SERVED_ENGINES = {"vllm_server": "vllm", "transformers_server": "transformers",
                  "sglang_server": "sglang", "trtllm_server": "trtllm"}
FALLBACKS = ("transformers",)
X86 = ("x86_64", "amd64", "i686")


@dataclass(frozen=True)
class ServedBy:
    engine: str          # the engine that serves (engines.ENGINES)
    asked: str           # the case's engine key
    why: str

    def record(self) -> dict:
        return {"engine": self.engine, "asked": self.asked, "why": self.why}


def processor_problem(machine: str, flags: Iterable[str]) -> Optional[str]:
    """Why vLLM's CPU build cannot run on this processor, or None (pure)."""
    if machine.lower() in X86 and "avx2" not in set(flags):
        return (f"this {machine} processor has no AVX2, and vLLM's CPU build has kernels for "
                "AVX2 and AVX512 only")
    return None


def cpu_flags(cpuinfo: Path = Path("/proc/cpuinfo")) -> set[str]:
    try:
        text = cpuinfo.read_text()
    except OSError:
        return set()
    return {f for line in text.splitlines() if line.startswith("flags")
            for f in line.split(":", 1)[1].split()}


def vllm_problem(python: str, device_kind: str) -> Optional[str]:
    """Why vLLM cannot serve from ``python`` here, or None."""
    probe = [python, "-c", "import importlib.util, sys; "
             "sys.exit(importlib.util.find_spec('vllm') is None)"]
    if subprocess.run(probe, check=False, capture_output=True).returncode != 0:
        return f"package 'vllm' is not installed for {python} (no vLLM build in this image)"
    if device_kind == "cpu":
        return processor_problem(platform.machine(), cpu_flags())
    return None


def choose(asked: str, fallback: Optional[str], python: str, device_kind: str) -> ServedBy:
    """The engine that serves, and why; a CaseError when vLLM cannot run and no fallback
    is allowed."""
    engine = SERVED_ENGINES[asked]
    check_device(asked, device_kind)
    if engine != "vllm":
        return ServedBy(engine, asked, f"engine {asked} in the configuration")
    problem = vllm_problem(python, device_kind)
    if problem is None:
        return ServedBy(engine, asked, f"engine {asked} in the configuration")
    if fallback is None:
        raise CaseError(f"engine {asked}: vLLM cannot run here: {problem}: use the serving image "
                        "(framework pytorch_vllm_0.32 on the cpu vendor), or set serve_fallback: "
                        "transformers to serve with the transformers engine (the run says so)")
    return ServedBy(fallback, asked, f"vLLM cannot run here: {problem}; serve_fallback: "
                    f"{fallback}")


def check_device(asked: str, device_kind: str) -> None:
    """A CaseError when the engine has no build for this run's device (SGLang and TensorRT-LLM
    run on vendor nvidia's GPUs only: no chipperf image has another build of either)."""
    vendors = ENGINES[SERVED_ENGINES[asked]].vendors
    devices = sorted({get_vendor(v).device for v in vendors})
    if vendors and device_kind not in devices:
        raise CaseError(f"engine {asked} runs on vendor {', '.join(vendors)} only (device "
                        f"{', '.join(devices)}) and this run's device is {device_kind}: no "
                        "chipperf image has a build of it for that device; serve with "
                        "vllm_server or transformers_server there")
