"""Case-config checks the text cases share: each returns its problems, so a case reports
every problem of its configuration in one ``ConfigError``."""

from __future__ import annotations

from typing import Any, Iterable, Mapping, Sequence

from chipperf_runtime.training.driver import Config, ConfigError


def size_problems(cfg: Config, presets: Mapping[str, Any], targets: str) -> list[str]:
    """``model_size`` must name a preset, and the ``targets`` parameter must hold its target."""
    if cfg.model_size not in presets:
        return [f"model_size {cfg.model_size!r} is unknown: use one of {', '.join(presets)}"]
    if cfg.model_size not in cfg[targets]:
        return [f"{targets} has no target for model_size {cfg.model_size!r}"]
    return []


def dtype_problems(cfg: Config, dtypes: Sequence[str]) -> list[str]:
    if cfg.dtype in dtypes:
        return []
    return [f"dtype {cfg.dtype!r} is not supported: use one of {', '.join(dtypes)}"]


def count_problems(cfg: Config, names: Iterable[str]) -> list[str]:
    """Each of ``names`` must be at least 1."""
    return [f"{name} = {cfg[name]} must be at least 1" for name in names if cfg[name] < 1]


def raise_problems(problems: Sequence[str]) -> None:
    if problems:
        raise ConfigError("configuration problems:\n" + "\n".join(f"  - {p}" for p in problems))
