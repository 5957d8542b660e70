"""Layered, read-only case configuration.

Three layers, later wins:

1. the case's ``config/_base.py``: every public module-level name is a parameter with its
   default (names starting with ``_``, modules, functions and classes are not parameters);
2. the vendor file (``--extern_config_dir``/``--extern_config_file``), read as Python: it may
   set only the names listed in the case's ``config/mutable_params.py``
   (``mutable_params = [...]``); anything else is an error naming the file, the parameter
   and the allowed list;
3. command-line overrides (``--set name=value``): any parameter ``_base.py`` defines.

A value must keep the kind of its default (a number stays a number, a string a string;
a ``None`` default takes anything). The result is a ``Config``: attribute and mapping
access, no assignment, lists frozen to tuples and dicts to read-only mappings.
"""

from __future__ import annotations

import sys
import types
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from chipperf_runtime.training.driver.errors import ConfigError

BASE_FILE = "_base.py"
MUTABLE_FILE = "mutable_params.py"

BASE, VENDOR, OVERRIDE = "base", "vendor", "override"


class Config(Mapping[str, Any]):
    """A frozen parameter set; ``source(name)`` says which layer set each value and
    ``default(name)`` what ``_base.py`` gave it."""

    __slots__ = ("_defaults", "_sources", "_values")

    def __init__(self, values: Mapping[str, Any], sources: Mapping[str, str],
                 defaults: Mapping[str, Any] | None = None):
        object.__setattr__(self, "_values", {k: _freeze(v) for k, v in values.items()})
        object.__setattr__(self, "_sources", dict(sources))
        object.__setattr__(self, "_defaults", {k: _freeze(v) for k, v in
                                               (values if defaults is None else defaults).items()})

    def __getattr__(self, name: str) -> Any:
        try:
            return self._values[name]
        except KeyError:
            raise AttributeError(f"config has no parameter {name!r}") from None

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"config is read-only: cannot set {name!r}")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"config is read-only: cannot delete {name!r}")

    def __getitem__(self, name: str) -> Any:
        return self._values[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._values)

    def __len__(self) -> int:
        return len(self._values)

    def __repr__(self) -> str:
        return f"Config({self._values!r})"

    def source(self, name: str) -> str:
        return self._sources[name]

    def default(self, name: str) -> Any:
        """The value ``_base.py`` gives ``name`` (before the vendor file and ``--set``)."""
        return self._defaults[name]

    def as_dict(self) -> dict[str, Any]:
        """Plain, JSON-friendly copy (tuples become lists)."""
        return {k: _thaw(v) for k, v in self._values.items()}


def _freeze(value: Any) -> Any:
    if isinstance(value, (list, tuple)):
        return tuple(_freeze(v) for v in value)
    if isinstance(value, dict):
        return types.MappingProxyType({k: _freeze(v) for k, v in value.items()})
    return value


def _thaw(value: Any) -> Any:
    if isinstance(value, tuple):
        return [_thaw(v) for v in value]
    if isinstance(value, types.MappingProxyType):
        return {k: _thaw(v) for k, v in value.items()}
    return value


# ---------------------------------------------------------------- reading files


@contextmanager
def _importable(folder: Path) -> Iterator[None]:
    """Let a config file import its siblings (``from config_common import *``); the siblings
    are forgotten afterwards, so another vendor folder's file of the same name is read anew."""
    folder = Path(folder).resolve()  # a relative folder would never match a module's file
    before = set(sys.modules)
    sys.path.insert(0, str(folder))
    try:
        yield
    finally:
        if str(folder) in sys.path:
            sys.path.remove(str(folder))
        for name in set(sys.modules) - before:
            if Path(getattr(sys.modules[name], "__file__", None) or "/").resolve().parent == folder:
                del sys.modules[name]


def read_python(path: Path) -> dict[str, Any]:
    """The public names a Python config file defines."""
    path = Path(path)
    if not path.is_file():
        raise ConfigError(f"config file {path} does not exist")
    namespace: dict[str, Any] = {"__file__": str(path), "__name__": f"chipperf_config_{path.stem}"}
    try:
        code = compile(path.read_text(), str(path), "exec")
        with _importable(path.parent):
            exec(code, namespace)  # noqa: S102 - config files are Python by contract
    except Exception as exc:  # a config file can fail in any way; report it as config
        raise ConfigError(f"config file {path} cannot be read: {type(exc).__name__}: {exc}") from exc
    return {k: v for k, v in namespace.items() if _is_param(k, v)}


# chipperf.config.vendorconfig.render_translated writes these into a translated vendor config
ALIASES_NAME = "_flagperf_aliases"       # FlagPerf name -> the knob it set
DERIVED_NAME = "_flagperf_derived"       # knob -> how it was computed from FlagPerf's names
NO_EFFECT_NAME = "_flagperf_no_effect"   # FlagPerf name -> why it has no effect here
# chipperf.plan sets this launch variable when a FlagPerf key of another implementation
# (Megatron-LM, FlagScale) runs as chipperf's torch-native case: what differs, for SUBMIT_INFO
IMPLEMENTATION_ENV = "CHIPPERF_IMPLEMENTATION_NOTE"


def read_aliases(path: Path | None, name: str = ALIASES_NAME) -> dict[str, str]:
    """One of the tables chipperf wrote into a translated vendor config (``name``: the FlagPerf
    names it mapped, by default; {} in any other config), for SUBMIT_INFO."""
    if path is None or not Path(path).is_file():
        return {}
    import ast

    for node in ast.parse(Path(path).read_text()).body:
        if isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == name for t in node.targets):
            try:
                value = ast.literal_eval(node.value)
            except ValueError:
                return {}
            return {str(k): str(v) for k, v in value.items()} if isinstance(value, dict) else {}
    return {}


def _is_param(name: str, value: Any) -> bool:
    if name.startswith("_"):
        return False
    return not isinstance(value, (types.ModuleType, types.FunctionType, types.BuiltinFunctionType,
                                  type))


def read_mutable(path: Path) -> frozenset[str]:
    names = read_python(path)
    listed = names.get("mutable_params", names.get("MUTABLE_PARAMS"))
    if not isinstance(listed, (list, tuple, set, frozenset)) or not all(
            isinstance(n, str) for n in listed):
        raise ConfigError(f"{path}: must define mutable_params = [names a vendor config may set]")
    return frozenset(listed)


# ---------------------------------------------------------------- layering


def load_config(base: Mapping[str, Any], mutable: frozenset[str] | set[str],
                vendor: Mapping[str, Any] | None = None, vendor_file: str = "vendor config",
                overrides: Mapping[str, Any] | None = None) -> Config:
    """Apply the three layers; raises ``ConfigError`` listing every problem at once."""
    problems = _unknown_mutable(base, mutable)
    values, sources = dict(base), {k: BASE for k in base}
    for name, value in (vendor or {}).items():
        if name not in mutable:
            problems.append(f"{vendor_file}: sets {name!r}, which a vendor config may not change; "
                            f"allowed: {', '.join(sorted(mutable)) or '(none)'}")
            continue
        problems += _kind_problems(vendor_file, name, base[name], value)
        values[name], sources[name] = value, VENDOR
    for name, value in (overrides or {}).items():
        if name not in base:
            problems.append(f"--set {name}=...: unknown parameter {name!r}; known: "
                            f"{', '.join(sorted(base))}")
            continue
        problems += _kind_problems(f"--set {name}", name, base[name], value)
        values[name], sources[name] = value, OVERRIDE
    if problems:
        raise ConfigError("configuration problems:\n" + "\n".join(f"  - {p}" for p in problems))
    return Config(values, sources, base)


def _unknown_mutable(base: Mapping[str, Any], mutable: frozenset[str] | set[str]) -> list[str]:
    return [f"{MUTABLE_FILE}: lists {name!r}, which {BASE_FILE} does not define"
            for name in sorted(set(mutable) - set(base))]


def value_kind(value: Any) -> str:
    """What a config value must stay when a vendor config changes it: bool, number, sequence,
    or its type's name. The one rule, used by the case here and by the engine's plan-time
    check (chipperf.config.vendorconfig)."""
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, (list, tuple)):
        return "sequence"
    return type(value).__name__


def _kind_problems(where: str, name: str, default: Any, value: Any) -> list[str]:
    if default is None or value is None or value_kind(default) == value_kind(value):
        return []
    return [(f"{where}: {name} = {value!r} is a {value_kind(value)}, but its default "
            f"{default!r} is a {value_kind(default)}")]


def load_case_config(config_dir: Path, vendor_config: Path | None,
                     overrides: Mapping[str, Any] | None = None) -> Config:
    """Read ``<case>/config/_base.py`` + ``mutable_params.py``, the vendor file, the overrides."""
    config_dir = Path(config_dir)
    base = read_python(config_dir / BASE_FILE)
    mutable = read_mutable(config_dir / MUTABLE_FILE)
    vendor = read_python(vendor_config) if vendor_config is not None else None
    return load_config(base, mutable, vendor, str(vendor_config), overrides)
