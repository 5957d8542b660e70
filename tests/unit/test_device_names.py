"""Only the device layer and the nvidia vendor name CUDA (issue: never a silent CPU run).

A case, driver, engine or suite file that says ``torch.cuda`` or ``"cuda"`` either works on
NVIDIA only or picks the device itself; both bypass the device layer, which is where a vendor's
device is opened and where a missing one becomes an error instead of a CPU run. This test
reads every Python file of the case and engine trees and names each line that mentions CUDA
(in any case: prose that says "CUDA" is usually a sign of code that assumes it).
"""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

# Case code and the runtime (shipped into containers), and the engine.
TREES = ("training/benchmarks", "inference/benchmarks", "base", "operation", "chipperf", "chipperf_runtime")
# Where naming CUDA is the point: the device layer; the vendor modules, which name their
# device kind (nvidia, and the CUDA-compatible builds of amd, dcu, iluvatar and metax); and
# any folder named nvidia (configs, images, the NVIDIA-only inference engines).
ALLOWED_DIRS = ("chipperf_runtime/device", "chipperf_runtime/vendors")
# and files that quote what an NVIDIA machine reports as data: the synthetic result directory
# the results tests read carries an NVIDIA sys_info ("runtime_version": "CUDA 12.2 ...").
# flagperf_knobs.py: a table of FlagPerf's own parameter names (cuda_graph_mode, ...), as data
# ixrt.py: Iluvatar's IxRT keeps TensorRT's API, whose runtime method is deserialize_cuda_engine
# (the device is still the one the device layer opened for vendor iluvatar)
ALLOWED_FILES: tuple[str, ...] = ("tests/synthetic_results.py", "chipperf/config/flagperf_knobs.py",
                                  "chipperf_runtime/inference/engines/vendors/ixrt.py")
CUDA = re.compile(r"cuda", re.IGNORECASE)


def allowed(relative: str) -> bool:
    parts = relative.split("/")
    return ("nvidia" in parts or relative in ALLOWED_FILES
            or any(relative.startswith(d + "/") for d in ALLOWED_DIRS))


def offending_lines() -> list[str]:
    found = []
    for tree in TREES:
        for path in sorted((REPO / tree).rglob("*.py")):
            relative = path.relative_to(REPO).as_posix()
            if allowed(relative):
                continue
            for number, line in enumerate(path.read_text().splitlines(), start=1):
                if CUDA.search(line):
                    found.append(f"{relative}:{number}: {line.strip()}")
    return found


def test_no_case_or_engine_file_names_cuda_outside_the_device_layer() -> None:
    found = offending_lines()
    assert found == [], ("these lines name CUDA outside chipperf_runtime/device and the nvidia vendor; "
                         "ask the device layer (chipperf_runtime.device) instead:\n" + "\n".join(found))


def test_the_scan_reads_the_case_and_engine_trees() -> None:
    """The scan is not vacuous: it covers the case code and finds CUDA where it is allowed."""
    scanned = [p for t in TREES for p in (REPO / t).rglob("*.py")]
    assert any("training/benchmarks/resnet50" in p.as_posix() for p in scanned)
    assert any("chipperf_runtime/inference/engines" in p.as_posix() for p in scanned)
    nvidia_engine = (REPO / "chipperf_runtime/inference/engines/nvidia/onnxruntime_gpu.py")
    assert CUDA.search(nvidia_engine.read_text()) and allowed(
        nvidia_engine.relative_to(REPO).as_posix())
    assert not allowed("chipperf_runtime/inference/engines/torch_engines.py")
