"""The launch contract's arguments, parsed into a frozen ``CaseArgs``.

    --data_dir D --extern_config_dir DIR --extern_config_file config_<chip>x<n>x<p>.py
    --output_dir DIR [--set name=value ...]

``--set`` overrides one config parameter; the value is read as a Python literal
(``--set lr=0.1``, ``--set dtype='bf16'``), or taken as a plain string when it is not one
(``--set dtype=bf16``).
"""

from __future__ import annotations

import argparse
import ast
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from chipperf_runtime.training.driver.errors import ConfigError, LaunchError


@dataclass(frozen=True)
class CaseArgs:
    data_dir: Path
    extern_config_dir: Path | None
    extern_config_file: str | None
    output_dir: Path | None
    overrides: Mapping[str, Any]

    @property
    def vendor_config(self) -> Path | None:
        """The vendor config file, or None when the case runs on its defaults."""
        if not self.extern_config_file:
            return None
        path = Path(self.extern_config_file)
        if path.is_absolute() or self.extern_config_dir is None:
            return path
        return self.extern_config_dir / path


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        raise LaunchError(f"bad case arguments: {message}\n{self.format_usage()}")


def _parser() -> argparse.ArgumentParser:
    p = _Parser(description="chipperf training case (launch contract arguments)")
    p.add_argument("--data_dir", required=True, type=Path, help="dataset root on this host")
    p.add_argument("--extern_config_dir", type=Path, help="vendor config folder")
    p.add_argument("--extern_config_file", help="vendor config file name in that folder")
    p.add_argument("--output_dir", type=Path, help="this node's result folder")
    p.add_argument("--set", dest="overrides", action="append", default=[], metavar="NAME=VALUE",
                   help="override one config parameter (Python literal); repeatable")
    return p


def parse_args(argv: Sequence[str] | None = None) -> CaseArgs:
    ns = _parser().parse_args(argv)
    return CaseArgs(
        data_dir=ns.data_dir,
        extern_config_dir=ns.extern_config_dir,
        extern_config_file=ns.extern_config_file,
        output_dir=ns.output_dir,
        overrides=parse_overrides(ns.overrides),
    )


def parse_overrides(items: Sequence[str]) -> dict[str, Any]:
    """['lr=0.1', 'dtype=bf16'] -> {'lr': 0.1, 'dtype': 'bf16'}."""
    out: dict[str, Any] = {}
    for item in items:
        name, sep, text = item.partition("=")
        name = name.strip()
        if not sep or not name.isidentifier():
            raise ConfigError(f"--set {item!r}: expected NAME=VALUE with NAME a parameter name")
        out[name] = parse_value(text.strip())
    return out


def parse_value(text: str) -> Any:
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return text
