"""Layered case configuration: configuration.yaml, then the vendor's file, then ``--set k=v``.

    <extern_config_dir>/configuration.yaml                        the case's keys and defaults
    <extern_config_dir>/configurations.yaml, parameters.yaml       FlagPerf's files, if present
    <extern_config_dir>/vendor_config/<vendor>_configurations.yaml FlagPerf's vendor file, if present
    <extern_config_dir>/vendor_config/<vendor>_configuration.yaml  vendor overrides
    --set key=value (repeatable; nested keys with dots: tolerance.default.bf16=0.1)

FlagPerf's files are mapped onto chipperf's keys by ``common.flagperf`` (its keys with no
meaning here become notes, not errors); the vendor needs at least one of its two files.

The keys of configuration.yaml are the allowed keys: a vendor file or ``--set`` may only
override keys it lists (a typo is an error, not a silent new key). A value must keep the type
of the default (an int is accepted where a float is expected; a null default accepts
anything); a mapping default is merged key by key, and an empty mapping default (e.g.
``tolerance: {onnxruntime: {}}``) accepts any keys. Every problem is reported at once.
"""

from __future__ import annotations

from pathlib import Path
from types import MappingProxyType
from typing import Any, Mapping, Sequence

import yaml

from chipperf_runtime.inference import flagperf
from chipperf_runtime.inference.engine_limits import serving_engine_problems
from chipperf_runtime.inference.errors import CaseError
from chipperf_runtime.inference.vendor_engines import vendor_engine_problems

BASE_FILE = "configuration.yaml"
VENDOR_DIR = "vendor_config"
VENDOR_SUFFIX = "_configuration.yaml"


def load(config_dir: str | Path, vendor_file: str | None, sets: Sequence[str] = ()) -> Mapping:
    """The merged, read-only configuration; raises CaseError listing every problem."""
    return load_with_notes(config_dir, vendor_file, sets)[0]


def load_with_notes(config_dir: str | Path, vendor_file: str | None,
                    sets: Sequence[str] = ()) -> tuple[Mapping, list[str]]:
    """(configuration, notes about FlagPerf keys that were ignored)."""
    merged, notes, problems = read_layers(config_dir, vendor_file, sets)
    if problems:
        raise CaseError("configuration problems:\n  " + "\n  ".join(problems))
    return merged, notes


def read_layers(config_dir: str | Path, vendor_file: str | None, sets: Sequence[str] = (),
                vendor_engines: bool = False) -> tuple[Mapping, list[str], list[str]]:
    """(configuration, notes, every problem): what the case will read, without raising (the
    plan reads it so on the master, before anything runs, with ``vendor_engines``: an
    NVIDIA-only engine the files give another vendor is a problem too; in the case, the
    engine itself says so)."""
    config_dir = Path(config_dir)
    problems: list[str] = []
    notes: list[str] = []
    base = _read_yaml(config_dir / BASE_FILE, problems, required=True)
    layers = [*_flagperf_layers(config_dir, flagperf.FILES, base, problems, notes),
              *_vendor_layers(config_dir, vendor_file, base, problems, notes)]
    overrides, found = parse_sets(sets)
    problems += found
    merged = dict(base)
    for source, layer in [*layers, ("--set", overrides)]:
        merged, found = merge(merged, layer, source)
        problems += found
    if vendor_engines and not problems:
        engine_sources = [source for source, layer in layers if "engine" in layer]
        vendor = vendor_of(vendor_file or "")
        problems += nvidia_engine_problems(merged, vendor, config_dir, engine_sources)
        problems += vendor_engine_problems(
            merged, vendor, [*engine_sources, *(["--set"] if "engine" in overrides else [])],
            f"{config_dir / VENDOR_DIR}/{vendor}{VENDOR_SUFFIX}")
        problems += serving_engine_problems(
            merged, vendor_of(vendor_file or ""),
            [*engine_sources, *(["--set"] if "engine" in overrides else [])])
        problems += served_problems(merged)
    return freeze(merged), notes, problems


def served_problems(config: Mapping) -> list[str]:
    """The served mode's keys (an LLM case with engine vllm_server or transformers_server)."""
    from chipperf_runtime.inference.llm.served.settings import served_problems as problems

    return problems(config)


# engines/nvidia: NVIDIA's TensorRT, natively or as ONNX Runtime's execution provider
NVIDIA_ENGINES = ("tensorrt", "onnxruntime-trt")


def nvidia_engine_problems(config: Mapping, vendor: str, config_dir: Path,
                           sources: Sequence[str]) -> list[str]:
    """An NVIDIA-only engine for another vendor (FlagPerf's configurations.yaml names
    ``compiler: tensorrt`` for every vendor; a vendor file that does not override it inherits it)."""
    engine = config.get("engine")
    if engine not in NVIDIA_ENGINES or not vendor or vendor == "nvidia":
        return []
    where = ", ".join(sources) or str(config_dir / BASE_FILE)
    return [f"{where}: engine {engine!r} is NVIDIA's TensorRT, which chipperf runs for vendor "
            f"nvidia only, and vendor {vendor!r} inherits it: set engine (FlagPerf: compiler) to "
            f"eager, compile or onnxruntime in {config_dir / VENDOR_DIR}/{vendor}{VENDOR_SUFFIX}"]


def _vendor_layers(config_dir: Path, vendor_file: str | None, base: Mapping,
                   problems: list[str], notes: list[str]) -> list[tuple[str, dict]]:
    """FlagPerf's <vendor>_configurations.yaml (mapped), then chipperf's <vendor>_configuration.yaml."""
    if not vendor_file:
        return []
    vendor = vendor_of(vendor_file)
    folder = config_dir / VENDOR_DIR
    ours = folder / f"{vendor}{VENDOR_SUFFIX}"
    theirs = folder / f"{vendor}{flagperf.VENDOR_SUFFIX}"
    if not ours.is_file() and not theirs.is_file():
        problems.append(f"{folder / vendor_file}: file not found: create it (an empty file means "
                        f"no overrides; FlagPerf's {theirs.name} is read too)")
        return []
    layers = _flagperf_layers(folder, (theirs.name,), base, problems, notes)
    return [*layers, (str(ours), _read_yaml(ours, problems, required=False))]


def _flagperf_layers(folder: Path, names: Sequence[str], base: Mapping, problems: list[str],
                     notes: list[str]) -> list[tuple[str, dict]]:
    layers = []
    for name in names:
        path = folder / name
        if path.is_file():
            mapped, found_notes, found = flagperf.translate(
                str(path), _read_yaml(path, problems, required=False), base)
            notes += found_notes
            problems += found
            layers.append((str(path), mapped))
    return layers


def vendor_of(vendor_file: str) -> str:
    """``nvidia_configuration.yaml`` or FlagPerf's ``nvidia_configurations.yaml`` -> ``nvidia``."""
    name = Path(vendor_file).name
    for suffix in (flagperf.VENDOR_SUFFIX, VENDOR_SUFFIX):
        if name.endswith(suffix):
            return name[: -len(suffix)]
    return name


def _read_yaml(path: Path, problems: list[str], required: bool) -> dict:
    if not path.is_file():
        if required:
            fix = ("create it (an empty file means no overrides)" if path.parent.name == VENDOR_DIR
                   else "it holds the case's keys and their defaults: restore it (or pass the "
                        "folder that holds it as --extern_config_dir)")
            problems.append(f"{path}: file not found: {fix}")
        return {}
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except yaml.YAMLError as exc:
        problems.append(f"{path}: not valid YAML: {exc}")
        return {}
    if data is None:
        return {}
    if not isinstance(data, dict):
        problems.append(f"{path}: must hold a mapping of key: value, not {type(data).__name__}")
        return {}
    return data


def parse_sets(sets: Sequence[str]) -> tuple[dict, list[str]]:
    """``["a=1", "b.c=x"]`` -> ``{"a": 1, "b": {"c": "x"}}`` (values read as YAML scalars)."""
    out: dict = {}
    problems = []
    for item in sets:
        key, sep, text = item.partition("=")
        if not sep or not key.strip():
            problems.append(f"--set {item!r}: expected key=value")
            continue
        try:
            value = yaml.safe_load(text) if text.strip() else None
        except yaml.YAMLError:
            value = text
        node = out
        *parents, leaf = key.strip().split(".")
        for part in parents:
            node = node.setdefault(part, {})
            if not isinstance(node, dict):
                problems.append(f"--set {item!r}: {part!r} is set both as a value and a mapping")
                break
        else:
            node[leaf] = value
    return out, problems


def merge(base: Mapping, override: Mapping, source: str, where: str = "") -> tuple[dict, list[str]]:
    """``base`` updated by ``override``; unknown keys and type changes are problems."""
    out = dict(base)
    problems: list[str] = []
    for key, value in override.items():
        name = f"{where}{key}"
        if not base and where:  # an empty mapping default is open: any keys
            out[key] = value
            continue
        if key not in base:
            allowed = ", ".join(sorted(map(str, base))) or "(none)"
            problems.append(f"{source}: unknown key {name!r}: allowed keys here are {allowed} "
                            f"(add it to {BASE_FILE} first)")
            continue
        value, problem = _coerce(base[key], value)
        if problem:
            problems.append(f"{source}: {name}: {problem}")
        elif isinstance(base[key], dict) and isinstance(value, dict):
            out[key], found = merge(base[key], value, source, f"{name}.")
            problems += found
        else:
            out[key] = value
    return out, problems


def _coerce(default: Any, value: Any) -> tuple[Any, str]:
    if default is None or value is None:
        return value, ""
    if isinstance(default, bool):
        return (value, "") if isinstance(value, bool) else (value, f"expected true/false, got {value!r}")
    if isinstance(default, float) and not isinstance(value, bool):
        try:
            return float(value), ""
        except (TypeError, ValueError):
            return value, f"expected a number, got {value!r}"
    if isinstance(default, int) and isinstance(value, int) and not isinstance(value, bool):
        return value, ""
    if isinstance(default, str) and isinstance(value, (str, int, float)) and not isinstance(value, bool):
        return str(value), ""
    if isinstance(default, dict) and isinstance(value, dict):
        return value, ""
    if isinstance(default, list) and isinstance(value, list):
        return value, ""
    return value, f"expected {type(default).__name__} like the default {default!r}, got {value!r}"


def freeze(value: Any) -> Any:
    if isinstance(value, dict):
        return MappingProxyType({k: freeze(v) for k, v in value.items()})
    if isinstance(value, list):
        return tuple(freeze(v) for v in value)
    return value


def thaw(value: Any) -> Any:
    """A plain (JSON-able) copy of a frozen configuration."""
    if isinstance(value, Mapping):
        return {k: thaw(v) for k, v in value.items()}
    if isinstance(value, tuple):
        return [thaw(v) for v in value]
    return value
