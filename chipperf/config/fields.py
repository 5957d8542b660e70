"""The typed reads a config loader makes: ``Fields`` takes each setting with a kind that turns
the written value into a typed one, and records a problem (``where: what is wrong: how to
fix``) instead of raising, so that every problem of a file is reported at once; the kinds
(``as_port``, ``as_host_list``, ...) say what a value may be."""

from __future__ import annotations

import ipaddress
import math
import re
from pathlib import Path
from typing import Any, Callable, Mapping, NamedTuple, Optional

from chipperf.frameworks import MODES

ALL = "*"  # in ``RawConfig.broken``: the whole file could not be read



class RawConfig(NamedTuple):
    values: dict[str, Any]     # keys lower-cased, FlagPerf aliases applied
    problems: list[str]        # the file's own problems (syntax, code that needs execution)
    broken: frozenset[str]     # keys whose value could not be read (ALL: the whole file)
    written: dict[str, str] = {}   # key in ``values`` -> the name as the file wrote it


class Fields:
    """Typed reads from a config mapping that record problems instead of raising."""

    def __init__(self, path: Path, data: Mapping[str, Any], broken: frozenset[str] = frozenset(),
                 written: Mapping[str, str] | None = None):
        self.path, self.data, self.broken = path, data, broken
        self.written = dict(written or {})
        self.problems: list[str] = []
        self.used: set[str] = set()

    @classmethod
    def of(cls, path: Path, raw: RawConfig) -> "Fields":
        return cls(path, raw.values, raw.broken, raw.written)

    def name(self, key: str) -> str:
        """``key`` as the user wrote it (upper case when not written: a default's name)."""
        return self.written.get(key, key.upper())

    def get(self, key: str, kind: Callable[[Any], Any], default: Any, fix: str = "") -> Any:
        self.used.add(key)
        if key not in self.data or self.data[key] is None:
            return default
        try:
            return kind(self.data[key])
        except (TypeError, ValueError, OverflowError) as exc:
            self.fail(key, f"{shown(self.data[key])} is not valid ({exc})", fix)
            return default

    def fail(self, key: str, what: str, fix: str = "") -> None:
        if key in self.broken or ALL in self.broken:
            return  # the file's reader already said why this value is missing
        self.problems.append(f"{self.path}: {self.name(key)}: {what}" + (f": {fix}" if fix else ""))

    def unused(self) -> list[str]:
        return sorted(k for k in self.data if k not in self.used and not k.startswith("_"))


def shown(value: Any) -> str:
    """``repr(value)``, cut short when long (a 400-digit number is named, not printed; a
    path is kept whole up to 300 characters)."""
    text, most = repr(value), 300 if isinstance(value, str) else 60
    return text if len(text) <= most else f"{text[:most - 20]}... ({len(text)} characters)"


def as_overrides(value: Any) -> dict[str, Any]:
    """OVERRIDES: parameter name -> a literal value (number, string, bool, None, list)."""
    if not isinstance(value, Mapping):
        raise TypeError(f"a {type(value).__name__}, not a mapping")
    literal = (bool, int, float, str, type(None), list, tuple)
    bad = [k for k, v in value.items() if not isinstance(k, str) or not isinstance(v, literal)]
    if bad:
        raise ValueError(f"{', '.join(map(str, bad))}: names must be strings and values literals")
    return dict(value)


def as_port(value: Any) -> int:
    port = int(str(value).strip())
    if not 0 < port < 65536:
        raise ValueError("outside 1..65535")
    return port


def as_text(value: Any) -> str:
    """A setting that is one string (a path, a name, a URL): a list or a number is named as
    the wrong type, not turned into text (str(['a']) is no path)."""
    if isinstance(value, str):
        return value
    raise ValueError(f"a {type(value).__name__}, expected one string")


def as_str_tuple(value: Any) -> tuple[str, ...]:
    if isinstance(value, str):
        return tuple(v for v in value.split() if v)
    if isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value):
        return tuple(value)
    raise ValueError("expected a string or a list of strings")


# A host as SSH can reach it: an IP literal, or a name of letters, digits, '-', '_' and dots
# (no spaces or shell metacharacters: host names reach command lines and paths).
HOST_NAME = re.compile(r"^(?=.{1,253}$)[A-Za-z0-9_](?:[A-Za-z0-9_-]*[A-Za-z0-9_])?"
                        r"(?:\.[A-Za-z0-9_](?:[A-Za-z0-9_-]*[A-Za-z0-9_])?)*\.?$")


def as_host_list(value: Any) -> tuple[str, ...]:
    if not isinstance(value, (list, tuple)):
        raise ValueError(f"a {type(value).__name__}, expected a list of host names or addresses")
    for host in value:
        if not isinstance(host, str):
            raise ValueError(f"host {host!r} is a {type(host).__name__}, not a string")
        try:
            ipaddress.ip_address(host)
        except ValueError:
            if not HOST_NAME.match(host):
                raise ValueError(f"host {host!r} is neither an IP address nor a host name "
                                 "(letters, digits, '-', '_', '.')") from None
    return tuple(value)


def as_framework_match(value: Any) -> str:
    if value not in MODES:
        raise ValueError(f"not one of {', '.join(MODES)}")
    return str(value)


def as_flag(value: Any) -> bool:
    if isinstance(value, bool):
        return value
    if str(value).lower() in ("1", "true", "yes", "on", "0", "false", "no", "off"):
        return str(value).lower() in ("1", "true", "yes", "on")
    raise ValueError("expected true or false")


def slurm_minutes(slurm_time: str) -> Optional[float]:
    """Slurm's time format (``UNLIMITED``, ``M``, ``M:S``, ``H:M:S``, ``D-H``, ``D-H:M``,
    ``D-H:M:S``) in minutes; None: no limit."""
    text = slurm_time.strip()
    if text.upper() in ("UNLIMITED", "INFINITE", "NONE", ""):
        return None
    days, _, clock = text.rpartition("-")
    parts = [float(p) for p in clock.split(":")]
    if days:            # D-H, D-H:M, D-H:M:S
        h, m, s = (parts + [0.0, 0.0])[:3]
    elif len(parts) == 3:   # H:M:S
        h, m, s = parts
    else:               # M, M:S
        h, m, s = 0.0, parts[0], (parts + [0.0])[1]
    return float(days or 0) * 1440 + h * 60 + m + s / 60


SLURM_TIME = re.compile(r"^(\d+-)?\d+(:\d+){0,2}$")


def as_time_limit(value: Any) -> int:
    """SLURM_TIME_LIMIT: whole minutes (an int), or Slurm's time format ('90', '1:30:00',
    '2-00:00'); a limit under a minute or none at all is not a job's time limit here."""
    if isinstance(value, bool):
        raise ValueError("a bool, expected minutes or a Slurm time such as '1:30:00'")
    if isinstance(value, int):
        minutes = float(value)
    elif isinstance(value, str) and SLURM_TIME.match(value.strip()):
        minutes = slurm_minutes(value) or 0.0
    else:
        raise ValueError("expected whole minutes or a Slurm time (M, H:M:S, D-H:M:S)")
    if not 1 <= minutes <= 366 * 1440:
        raise ValueError("must be between 1 minute and 366 days")
    return math.ceil(minutes)


def as_count(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError("must be a whole number >= 1")
    return value
