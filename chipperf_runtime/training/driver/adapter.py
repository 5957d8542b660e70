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
    create_grad_scaler(config) -> scaler or None   (instead of the loop's own: GradScaler for fp16)
    backward(step, loss, optimizer, scaler)        backward, clipping and optimizer step
    update_model_params(loss, optimizer, scaler)   clipping and optimizer step, after the loop's backward
    train_step(model, batch, optimizer, scaler, config) -> loss           the whole step (images)
    train_one_step(model, batch, optimizer, step, scaler, config) -> loss  the whole step (text)
    calculate_loss(model, batch, config) -> loss   the batch's mean loss (loss loop: train and eval)

The loop zeroes the gradients before each step and steps the lr schedule after it, whatever
hook ran. A whole-step hook (``train_step``, ``train_one_step``) does its own forward, loss,
precision (``config.dtype``), backward and optimizer step; ``backward`` does the backward and
the optimizer step. A hook that replaces a step another hook is part of (``SUPERSEDES``) leaves
that one never called by the loop, so an adapter defining both is refused: the part becomes a
helper under another name that the larger hook calls itself.
"""

from __future__ import annotations

import importlib.util
import inspect
import sys
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any, Callable, Collection, Mapping

from chipperf_runtime.training.driver.errors import ConfigError

HOOKS = ("convert_model", "model_to_fp16", "model_to_ddp", "create_optimizer",
         "create_grad_scaler", "backward", "update_model_params", "train_step", "train_one_step",
         "calculate_loss")
# hook -> the hooks of the steps it replaces whole (the loop never calls those beside it)
SUPERSEDES = {"train_step": ("backward", "update_model_params"),
              "train_one_step": ("backward", "update_model_params"),
              "backward": ("update_model_params",)}
ADAPTER_FILE = Path("extern") / "trainer_adapter.py"
LAYERS_DIR = Path("extern") / "layers"
# the names of the variables the vendor's environment files set (comma-separated; the plan
# sets it beside them), so SUBMIT_INFO records those variables and their values
VENDOR_ENV_NAMES = "CHIPPERF_VENDOR_ENV"
DECLARED = "HOOKS"   # an adapter may list the hooks it provides: each must then be defined
REDUCED_DTYPES = ("fp16", "bf16")   # a config dtype for which model_to_fp16 is called


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

    def prepared(self, model: Any, config: Any) -> Any:
        """The network after convert_model, then model_to_fp16 when ``config.dtype`` is fp16
        or bf16 (every loop's order)."""
        model = self.converted("convert_model", model, config)
        reduced = config.dtype in REDUCED_DTYPES
        return self.converted("model_to_fp16", model, config) if reduced else model

    def bound(self, name: str, *trailing: Any) -> Callable[..., Any] | None:
        """The hook ``name`` as a function of the loop's arguments, ``trailing`` offered after
        them (e.g. the config); None when the adapter does not define it."""
        if not self.has(name):
            return None
        return lambda *offered: self.call(name, *offered, *trailing)

    def describe(self) -> dict[str, Any] | None:
        """For SUBMIT_INFO: the file and the hooks it provides (None without an adapter)."""
        if self.path is None:
            return None
        return {"file": str(self.path), "hooks": sorted(self.hooks)}


def superseded(hooks: Collection[str]) -> list[str]:
    """What is wrong with defining ``hooks`` together: one line per hook another one of them
    replaces whole (the master's plan check and the case's import say the same)."""
    return [f"defines {outer} and {inner}: {outer} replaces the whole step {inner} is part of, "
            f"so the loop never calls {inner}: rename it (e.g. _{inner}) as a helper that "
            f"{outer} calls, or remove {outer}"
            for outer, inner in ((o, i) for o in HOOKS if o in hooks
                                 for i in SUPERSEDES.get(o, ()) if i in hooks)]


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
    hooks = {n: getattr(module, n) for n in HOOKS if callable(getattr(module, n, None))}
    clashes = superseded(hooks)
    if clashes:
        raise ConfigError(f"{path}: {'; '.join(clashes)}")
    return Adapter(path, hooks)


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
