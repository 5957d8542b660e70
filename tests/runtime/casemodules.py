"""Tests' access to training-case code: a case's modules loaded by path, and the runtime
(``chipperf_runtime``) importable as the launch contract makes it.

Case folders are not packages and reuse module names (bert/paddle's ``model`` and resnet50's),
so a case module is loaded from its file and registered under a name no other case uses; a
case whose modules import each other by their own names (llama2_7b's ``run_pretraining``
imports ``llama_train``) keeps those names, which are unique across cases by convention.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

REPO = Path(__file__).resolve().parents[2]
BENCHMARKS = REPO / "training" / "benchmarks"

if str(REPO) not in sys.path:   # chipperf_runtime (the training driver, textlm ...), chipperf
    sys.path.insert(0, str(REPO))


def case_dir(case: str) -> Path:
    """``"bert/pytorch"`` -> training/benchmarks/bert/pytorch."""
    return BENCHMARKS / case


def load_case_module(case: str, name: str, register_as: str | None = None) -> ModuleType:
    """``<case>/<name>.py`` as a module registered as ``register_as`` (default ``name``);
    loaded once per test session."""
    key = register_as or name
    if key not in sys.modules:
        spec = importlib.util.spec_from_file_location(key, case_dir(case) / f"{name}.py")
        assert spec is not None and spec.loader is not None, f"{case}/{name}.py is not a module"
        module = importlib.util.module_from_spec(spec)
        sys.modules[key] = module   # dataclasses look their module up while it loads
        spec.loader.exec_module(module)
    return sys.modules[key]
