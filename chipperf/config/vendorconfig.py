"""A vendor case config (``config_<chip>x<nnodes>x<nproc>.py``), checked on the master at plan time.

The case code reads its vendor config inside the container and refuses a name its
``config/mutable_params.py`` does not list, or a value whose kind differs from the
``config/_base.py`` default. The same rules are applied here, before any image is built,
to the file read as data (``chipperf.config.pyconfig``; ``from config_common import *``
works), with FlagPerf's parameter names mapped to the case's knobs of the same meaning
(``chipperf.config.flagperf_aliases``, with a warning), FlagPerf's names in another unit
computed into the case's knob (``flagperf_knobs.DERIVED``: per-device batch -> global batch),
and FlagPerf's knobs for its own implementation accepted with a note saying why they have no
effect (``flagperf_knobs.NO_EFFECT``). When a name was mapped, derived or set aside, the case
gets a translated file (``translated_name``) holding the resolved values under the case's
own names, and reads that one.
"""

from __future__ import annotations

from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator, Mapping

from chipperf.config.flagperf_aliases import FLAGPERF_ALIASES, IMPLIED
from chipperf.config.flagperf_knobs import Derivation, derivations, no_effect
from chipperf.config.pyconfig import PyConfig, read_py_config
from chipperf_runtime.training.driver.config import (
    ALIASES_NAME,
    DERIVED_NAME,
    NO_EFFECT_NAME,
    value_kind,
)

BASE_FILE, MUTABLE_FILE = "_base.py", "mutable_params.py"
TRANSLATED_PREFIX = "chipperf_"


@dataclass(frozen=True)
class VendorConfig:
    values: dict[str, Any] = field(default_factory=dict)     # under the case's own names
    renamed: dict[str, str] = field(default_factory=dict)    # FlagPerf name -> case knob
    problems: tuple[str, ...] = ()
    checked: bool = False                                     # the case declares its knobs
    implied: tuple[str, ...] = ()                             # knobs a mapped name implied
    derived: dict[str, str] = field(default_factory=dict)    # knob -> how, from FlagPerf's names
    no_effect: dict[str, str] = field(default_factory=dict)  # FlagPerf name -> why it has none

    @property
    def translated(self) -> bool:
        """The case reads a translated file (the vendor's names differ from its knobs)."""
        return bool(self.renamed or self.derived or self.no_effect)

    def notes(self, path: Path) -> tuple[str, ...]:
        return tuple(f"{path}: {old} is FlagPerf's name for {new}: set as {new}"
                     for old, new in sorted(self.renamed.items())) + tuple(
            f"{path}: {name} = {self.values[name]!r}, implied by FlagPerf's "
            f"{', '.join(o for o, n in sorted(self.renamed.items()) if IMPLIED.get(n, ('',))[0] == name)}"
            for name in self.implied) + tuple(
            f"{path}: {knob} = {self.values[knob]!r}, derived from FlagPerf's {how}"
            for knob, how in self.derived.items()) + tuple(
            f"{path}: {name}: no effect in chipperf: {why}"
            for name, why in sorted(self.no_effect.items()))


def translated_name(config_name: str) -> str:
    return f"{TRANSLATED_PREFIX}{config_name}"


_Key = tuple[Path, Path, str, tuple[Path, ...], int]
_read_once: ContextVar[dict[_Key, VendorConfig] | None] = ContextVar("_read_once", default=None)


@contextmanager
def reading_once() -> Iterator[None]:
    """Within this, each vendor config is read and checked once: a plan asks for it at every
    node of every round (reading it each time made a 2,000-round plan take 13 s, issue 42)."""
    token = _read_once.set(_read_once.get() if _read_once.get() is not None else {})
    try:
        yield
    finally:
        _read_once.reset(token)


def check_vendor_config(case_config_dir: Path, vendor_file: Path, case: str,
                        packages: tuple[Path, ...] = (), world: int = 1) -> VendorConfig:
    """``case`` is ``model:family``; ``packages`` the folders case code imports from; ``world``
    the case key's nnodes x nproc (FlagPerf's per-device sizes are multiplied by it)."""
    read = _read_once.get()
    key = (case_config_dir, vendor_file, case, packages, world)
    if read is not None and key in read:
        return read[key]
    config = _check_vendor_config(case_config_dir, vendor_file, case, packages, world)
    if read is not None:
        read[key] = config
    return config


def _check_vendor_config(case_config_dir: Path, vendor_file: Path, case: str,
                         packages: tuple[Path, ...], world: int) -> VendorConfig:
    base = read_py_config(case_config_dir / BASE_FILE, packages)
    mutable = read_py_config(case_config_dir / MUTABLE_FILE, packages)
    if not (base.path.is_file() and mutable.path.is_file()):
        return VendorConfig()  # the case declares no knobs: its own code is the judge
    vendor = read_py_config(vendor_file)
    allowed = mutable.public().get("mutable_params")
    problems = base.problems + mutable.problems + vendor.problems
    if not isinstance(allowed, list) or not all(isinstance(n, str) for n in allowed):
        problems.append(f"{mutable.path}: must set mutable_params = [names a vendor config may set]")
        return VendorConfig(problems=tuple(problems), checked=True)
    aliases, alias_problems = _aliases(case, set(allowed))
    rules = tuple(d for d in derivations(case, vendor.public()) if d.knob in allowed)
    used = {n for d in rules for n in d.uses} - set(allowed) - set(aliases)
    values, renamed, name_problems = _rename(vendor, aliases, allowed, case, used)
    set_aside = _no_effect(vendor, case, set(allowed) | set(aliases) | used)
    problems = [p for p in problems if p not in {vendor.calls.get(n) for n in set_aside}]
    derived, derive_problems = _derive(rules, vendor, values, base, world)
    implied = _imply(values, renamed, allowed)
    origin = {new: old for old, new in renamed.items()}
    kinds = [p for knob, value in values.items() if knob not in derived
             for p in _kind_problem(vendor, origin.get(knob, knob), knob, value, base)]
    return VendorConfig(values, renamed, tuple(problems + alias_problems + name_problems
                                               + derive_problems + kinds), True,
                        implied, derived, set_aside)


def _no_effect(vendor: PyConfig, case: str, taken: set[str]) -> dict[str, str]:
    """FlagPerf's names (set, or set by a call chipperf does not run) that have no effect on
    ``case``, with why (flagperf_knobs.NO_EFFECT)."""
    names = [n for n in (*vendor.public(), *vendor.calls) if n not in taken]
    return {n: why for n in names if (why := no_effect(case, n)) is not None}


def _derive(rules: tuple[Derivation, ...], vendor: PyConfig, values: dict[str, Any],
            base: PyConfig, world: int) -> tuple[dict[str, str], list[str]]:
    """Set each knob a derivation computes (in table order: later ones read earlier results);
    returns knob -> how, and the problems."""
    flagperf = vendor.public()
    derived: dict[str, str] = {}
    problems: list[str] = []
    for rule in rules:
        used = [n for n in rule.uses if n in flagperf]
        where = vendor.where(used[0])
        limit = values.get(rule.knob) if rule.bound and rule.knob not in derived else None
        if rule.knob in values and rule.knob not in derived and limit is None:
            problems.append(f"{where}: sets {rule.knob} twice ({rule.knob} and FlagPerf's "
                            f"{', '.join(used)}): keep one")
            continue
        try:
            value = rule.rule(flagperf, {**base.public(), **values}, world)
        except (TypeError, KeyError, ZeroDivisionError) as exc:
            problems.append(f"{where}: cannot compute {rule.knob} as {rule.says} "
                            f"({type(exc).__name__}: {exc}): give numbers")
            continue
        if rule.knob in derived and values[rule.knob] != value:
            problems.append(f"{where}: {', '.join(used)} gives {rule.knob} = {value!r}, but "
                            f"{derived[rule.knob]} gave {values[rule.knob]!r}: keep one")
            continue
        says = rule.says
        if limit is not None:
            value, says = min(limit, value), f"{says}, or {rule.knob} = {limit!r} if smaller"
        values[rule.knob] = value
        derived[rule.knob] = says if rule.knob not in derived else f"{derived[rule.knob]}; and {says}"
    return derived, problems


def _imply(values: dict[str, Any], renamed: Mapping[str, str], allowed: list[str]
           ) -> tuple[str, ...]:
    """Set the knobs a mapped FlagPerf name implies (flagperf_aliases.IMPLIED) that the
    config leaves unset; returns their names."""
    implied = []
    for knob in sorted(set(renamed.values()) & set(IMPLIED)):
        name, value = IMPLIED[knob]
        if name not in values and name in allowed:
            values[name] = value
            implied.append(name)
    return tuple(implied)


def check_overrides(case_config_dir: Path, overrides: Mapping[str, Any], where: str,
                    packages: tuple[Path, ...] = ()) -> list[str]:
    """OVERRIDES against the case's knobs: each a name its mutable_params lists, each value of
    its default's kind (the rules a vendor config follows)."""
    if not overrides:
        return []
    base = read_py_config(case_config_dir / BASE_FILE, packages)
    mutable = read_py_config(case_config_dir / MUTABLE_FILE, packages)
    allowed = mutable.public().get("mutable_params") if mutable.path.is_file() else None
    if not isinstance(allowed, list):
        return [f"{where}: OVERRIDES: this case declares no parameters ({mutable.path} is missing "
                "or sets no mutable_params): remove OVERRIDES or run another case"]
    problems = [f"{where}: OVERRIDES sets {name!r}, which this case does not have; allowed: "
                f"{', '.join(sorted(allowed))}" for name in overrides if name not in allowed]
    for name, value in overrides.items():
        default = base.public().get(name)
        if name in allowed and default is not None and value is not None \
                and value_kind(default) != value_kind(value):
            problems.append(f"{where}: OVERRIDES {name} = {value!r} is a {value_kind(value)}, but "
                            f"its default {default!r} ({base.where(name)}) is a "
                            f"{value_kind(default)}: give a {value_kind(default)}")
    return problems


def _alias_table_line(case: str) -> str:
    """'chipperf/config/flagperf_aliases.py:<line>' of the case's table (the file alone when
    the entry is not written there)."""
    from chipperf.config import flagperf_aliases

    name = "chipperf/config/flagperf_aliases.py"
    try:
        lines = Path(flagperf_aliases.__file__).read_text(encoding="utf-8").splitlines()
    except OSError:
        return name
    found = next((i for i, line in enumerate(lines, 1) if line.lstrip().startswith(f'"{case}"')),
                 None)
    return f"{name}:{found}" if found else name


def _aliases(case: str, allowed: set[str]) -> tuple[dict[str, str], list[str]]:
    table, problems, aliases = FLAGPERF_ALIASES.get(case, {}), [], {}
    where = f"{_alias_table_line(case)}: {case}"
    for old, new in table.items():
        if not isinstance(new, str):
            problems.append(f"{where}: {old} maps to {new!r}: an alias maps to one knob; keep one")
        elif new not in allowed:
            problems.append(f"{where}: {old} maps to {new}, which the case's {MUTABLE_FILE} does "
                            "not list: fix the table")
        else:
            aliases[old] = new
    return aliases, problems


def _rename(vendor: PyConfig, aliases: Mapping[str, str], allowed: list[str], case: str,
            used: set[str]) -> tuple[dict[str, Any], dict[str, str], list[str]]:
    """The vendor's values under the case's knobs; ``used``: names a derivation reads, and
    names of no effect, are left to them."""
    values: dict[str, Any] = {}
    renamed: dict[str, str] = {}
    problems: list[str] = []
    for name, value in vendor.public().items():
        knob = aliases.get(name, name)
        if knob not in allowed and (name in used or no_effect(case, name) is not None):
            continue
        if knob not in allowed:
            problems.append(f"{vendor.where(name)}: sets {name!r}, which this case does not have"
                            f"{_alias_hint(aliases)}; allowed: {', '.join(sorted(allowed))}")
            continue
        if knob in values:
            first = next(n for n in vendor.public() if aliases.get(n, n) == knob)
            problems.append(f"{vendor.where(name)}: sets {knob} twice ({first} and {name}): keep one")
            continue
        values[knob] = value
        if knob != name:
            renamed[name] = knob
    return values, renamed, problems


def _alias_hint(aliases: Mapping[str, str]) -> str:
    if not aliases:
        return ""
    return " (FlagPerf names understood: " + ", ".join(f"{o}->{n}" for o, n in sorted(aliases.items())) + ")"


def _kind_problem(vendor: PyConfig, name: str, knob: str, value: Any, base: PyConfig) -> list[str]:
    default = base.public().get(knob)
    if default is None or value is None or value_kind(default) == value_kind(value):
        return []
    return [f"{vendor.where(name)}: {name} = {value!r} "
            f"is a {value_kind(value)}, but its default {default!r} ({base.where(knob)}) is a "
            f"{value_kind(default)}: give a {value_kind(default)}"]






def render_translated(values: Mapping[str, Any], source: Path, config: VendorConfig) -> str:
    """The translated vendor config: plain literals under the case's names, and what was
    mapped, derived and set aside (the case's SUBMIT_INFO reports them)."""
    lines = [f"# Written by chipperf from {source.name}: FlagPerf's names mapped to this case's",
             "# (" + ", ".join([f"{o} -> {n}" for o, n in sorted(config.renamed.items())]
                               + [f"{k} derived" for k in config.derived]
                               + [f"{n}: no effect" for n in sorted(config.no_effect)]) + ").", ""]
    lines += [f"{name} = {value!r}" for name, value in values.items()]
    lines += ["", "# The case's SUBMIT_INFO reports these (flagperf_aliases, flagperf_derived, "
              "flagperf_no_effect).",
              f"{ALIASES_NAME} = {dict(sorted(config.renamed.items()))!r}",
              f"{DERIVED_NAME} = {dict(config.derived)!r}",
              f"{NO_EFFECT_NAME} = {dict(sorted(config.no_effect.items()))!r}"]
    return "\n".join(lines) + "\n"
