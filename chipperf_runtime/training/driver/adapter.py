"""A vendor's trainer adapter (``<vendor>/<model>-<framework>/extern/trainer_adapter.py``), in the case.

FlagPerf's vendor case folders carry a module whose functions replace steps of the standard
training loop for the vendor's chip: how the model is converted, which optimizer and grad
scaler are made, how the model is cast for reduced precision and wrapped for data
parallelism, and how the backward pass and optimizer step run. A loop that supports the
adapter calls ``Adapter.call`` at fixed, named points (``HOOKS``); where the adapter has no
such function the loop's own step runs. ``extern/`` and the vendor case folder are put on
``sys.path`` first, so the adapter imports its own kernels (``extern/layers/``) by name.

The master checks the file at plan time (``chipperf.config.adaptation``): it parses, the hooks
it declares exist, and the case's loop has a point for each. What only the container can find
out (an import that fails there) stops the case here, before training, naming the file.

Hooks and the arguments offered, in order (a hook takes the first N of them: FlagPerf's
``convert_model(model)`` and ``create_optimizer(model, args)`` both work):

    convert_model(model, config) -> model          after the network is built
    model_to_fp16(model, config) -> model          when dtype is fp16 or bf16
    model_to_ddp(model, config) -> model           when the run is distributed (instead of DDP)
    create_optimizer(model, config) -> optimizer
    create_grad_scaler(config) -> scaler or None   (instead of torch.amp.GradScaler for fp16)
    backward(step, loss, optimizer, scaler)        backward and optimizer step (not the scheduler)
"""

from __future__ import annotations

import importlib.util
import inspect
import sys
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any, Callable, Mapping

from chipperf_runtime.training.driver.errors import ConfigError

HOOKS = ("convert_model", "model_to_fp16", "model_to_ddp", "create_optimizer",
         "create_grad_scaler", "backward")
ADAPTER_FILE = Path("extern") / "trainer_adapter.py"
LAYERS_DIR = Path("extern") / "layers"
# the names of the variables the vendor's environment files set (comma-separated; the plan
# sets it beside them), so SUBMIT_INFO records those variables and their values
VENDOR_ENV_NAMES = "CHIPPERF_VENDOR_ENV"
DECLARED = "HOOKS"   # an adapter may list the hooks it provides: each must then be defined


@dataclass
class Adapter:
    """The vendor's hooks (none when the vendor case has no adapter) and which ones ran."""

    path: Path | None = None
    hooks: dict[str, Callable[..., Any]] = field(default_factory=dict)
    used: list[str] = field(default_factory=list)

    def has(self, name: str) -> bool:
        return name in self.hooks

    def call(self, name: str, *offered: Any) -> Any:
        """The hook ``name`` with the first arguments it takes of ``offered``."""
        hook = self.hooks[name]
        if name not in self.used:
            self.used.append(name)
        return hook(*offered[:_positional_count(hook, len(offered))])

    def step(self, name: str, default: Callable[[], Any], *offered: Any) -> Any:
        """The hook ``name`` when the adapter has it, else the loop's own step ``default()``."""
        return self.call(name, *offered) if self.has(name) else default()

    def converted(self, name: str, model: Any, config: Any) -> Any:
        """``model`` through the hook ``name`` (convert_model, model_to_fp16), or as it is."""
        return self.call(name, model, config) if self.has(name) else model

    def describe(self) -> dict[str, Any] | None:
        """For SUBMIT_INFO: the file and the hooks it provides (None without an adapter)."""
        if self.path is None:
            return None
        return {"file": str(self.path), "hooks": sorted(self.hooks)}


def vendor_env(environ: Mapping[str, str]) -> dict[str, str]:
    """The vendor environment files' variables as this process has them (VENDOR_ENV_NAMES)."""
    names = [n for n in environ.get(VENDOR_ENV_NAMES, "").split(",") if n]
    return {n: environ.get(n, "") for n in names}


def _positional_count(hook: Callable[..., Any], offered: int) -> int:
    try:
        params = inspect.signature(hook).parameters.values()
    except (TypeError, ValueError):
        return offered
    if any(p.kind is p.VAR_POSITIONAL for p in params):
        return offered
    return min(offered, sum(p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) for p in params))


def vendor_case_dir(config_dir: Path | None) -> Path | None:
    """The vendor case folder of ``--extern_config_dir`` (its ``config/``), or None."""
    return None if config_dir is None else Path(config_dir).resolve().parent


def load_adapter(config_dir: Path | None) -> Adapter:
    """The adapter of the vendor case whose config folder is ``config_dir``; an empty one when
    it has none. ``ConfigError`` naming the file when it cannot be imported or lacks a hook it
    declares."""
    case_dir = vendor_case_dir(config_dir)
    if case_dir is None or not (case_dir / ADAPTER_FILE).is_file():
        return Adapter()
    path = case_dir / ADAPTER_FILE
    module = _import(path, (path.parent, case_dir))
    declared = getattr(module, DECLARED, None)
    names = tuple(declared) if isinstance(declared, (list, tuple)) else HOOKS
    missing = [n for n in names if not callable(getattr(module, n, None))]
    if declared is not None and missing:
        raise ConfigError(f"{path}: declares hook(s) {', '.join(missing)} in {DECLARED} but does "
                          "not define them: define them or remove them from the list")
    return Adapter(path, {n: getattr(module, n) for n in HOOKS if callable(getattr(module, n, None))})


def _import(path: Path, search: tuple[Path, ...]) -> ModuleType:
    for folder in reversed(search):
        if str(folder) not in sys.path:
            sys.path.insert(0, str(folder))
    spec = importlib.util.spec_from_file_location("trainer_adapter", path)
    if spec is None or spec.loader is None:
        raise ConfigError(f"{path}: cannot be loaded as a Python module: check the file")
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    except Exception as exc:  # anything the vendor's module raises: reported, not a traceback
        raise ConfigError(f"{path}: importing the vendor's trainer adapter failed: "
                          f"{type(exc).__name__}: {exc}: fix the adapter, or install what it "
                          "imports (config/requirements.txt beside it)") from exc
    sys.modules["trainer_adapter"] = module
    return module
