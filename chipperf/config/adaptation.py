"""A vendor's adaptation of a training case, read on the master at plan time.

Beside its configs a FlagPerf vendor case folder carries what makes the case the vendor's:

    <root>/<vendor>/environment_variables.sh                       every case of the vendor
    <root>/<vendor>/<model>-<framework>/config/environment_variables.sh   this case (wins)
    <root>/<vendor>/<model>-<framework>/config/requirements.txt    pip packages: an image layer
    <root>/<vendor>/<model>-<framework>/extern/trainer_adapter.py  hooks (training.driver.adapter)
    <root>/<vendor>/<model>-<framework>/extern/layers/             the adapter's own modules

Environment files are read here, not by a shell: ``export NAME=value`` (or ``NAME=value``)
lines, comments and blank lines; a value is a plain word or a quoted literal. Anything else
(``$`` expansion, command substitution, ``source``, ``if``) is a problem naming the file and
line, so what the container gets is exactly what this module read. The adapter is parsed (not
imported: it imports the vendor's framework); its hooks are its top-level functions named in
``chipperf_runtime.training.driver.adapter.HOOKS``, and each must be a point the case's loop has
(``adapter_hooks`` in the case's ``case.yaml``).
"""

from __future__ import annotations

import ast
import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from packaging.requirements import InvalidRequirement, Requirement

from chipperf_runtime.training.driver.adapter import (
    ADAPTER_FILE,
    DECLARED,
    HOOKS,
    VENDOR_ENV_NAMES,
    superseded,
)

ENV_FILE = "environment_variables.sh"
REQUIREMENTS_FILE = "requirements.txt"
CASE_HOOKS_KEY = "adapter_hooks"     # case.yaml: the adapter hooks the case's loop calls
# an adapter written from FlagPerf's: {part of FlagPerf's adapter: why it is not carried}, a
# literal the plan prints and run.json records (what of the vendor's adapter does not run)
NOT_CARRIED = "NOT_CARRIED"
NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*$")
SHELL_OPTION = re.compile(r"set\s+[-+][a-z]+\s*(#.*)?$")
ARCHIVE_URL = re.compile(r"https?://\S+\.(whl|tar\.gz|zip)$")   # pip installs it by URL
# modules FlagPerf's case code has beside run_pretraining.py, which FlagPerf adapters import
FLAGPERF_MODULES = ("config", "utils", "driver", "dataloaders", "model", "train", "schedulers",
                    "optimizers")
# variables the plan sets for the launch contract: a vendor file may not change them
RESERVED = ("MASTER_ADDR", "MASTER_PORT", "NNODES", "NODE_RANK", "NPROC_PER_NODE", "WORLD_SIZE",
            "RANK", "LOCAL_RANK", "PYTHONPATH", VENDOR_ENV_NAMES)


@dataclass(frozen=True)
class Adaptation:
    """What a vendor case adds to the standard case, and every problem with it."""

    env: dict[str, str] = field(default_factory=dict)      # the container's, vendor then case
    env_files: tuple[Path, ...] = ()
    requirements: Path | None = None
    adapter: Path | None = None
    hooks: tuple[str, ...] = ()
    not_carried: tuple[str, ...] = ()    # "part: why", from the adapter's NOT_CARRIED
    problems: tuple[str, ...] = ()

    def record(self) -> dict[str, Any]:
        """For run.json: where each part came from and what it set."""
        return {"env": dict(self.env), "env_files": [str(p) for p in self.env_files],
                "requirements": str(self.requirements) if self.requirements else None,
                "trainer_adapter": str(self.adapter) if self.adapter else None,
                "adapter_hooks": list(self.hooks),
                **({"adapter_not_carried": list(self.not_carried)} if self.not_carried else {})}

    def container_env(self) -> dict[str, str]:
        """The variables, and VENDOR_ENV_NAMES naming them (SUBMIT_INFO records them)."""
        return {**self.env, VENDOR_ENV_NAMES: ",".join(self.env)} if self.env else {}


def read_adaptation(vendor_dir: Path, vendor_case: Path, where: str,
                    honoured: tuple[str, ...] | None, devices_env: str | None = None) -> Adaptation:
    """The adaptation of ``vendor_case`` (``<root>/<vendor>/<model>-<framework>``);
    ``where`` names vendor and case in each problem; ``honoured``: the hooks the case's loop
    calls (None: the case names none); ``devices_env``: the vendor's visible-devices variable,
    which the plan sets per node (a file may not)."""
    env: dict[str, str] = {}
    files, problems = [], []
    for path in (vendor_dir / ENV_FILE, vendor_case / "config" / ENV_FILE):
        if path.is_file():
            values, bad = parse_env_file(path)
            bad += [f"{path}: sets {devices_env}, which chipperf sets per node from the case "
                    "key's nproc: remove it (or set VISIBLE_DEVICES_ENV in the test config)"
                    ] if devices_env in values else []
            env.update(values)
            files.append(path)
            problems += [f"{where}: {p}" for p in bad]
    requirements = vendor_case / "config" / REQUIREMENTS_FILE
    has_requirements = requirements.is_file()
    if has_requirements:
        problems += [f"{where}: {p}" for p in requirements_problems(requirements)]
    adapter = vendor_case / ADAPTER_FILE
    hooks: tuple[str, ...] = ()
    gaps: tuple[str, ...] = ()
    if adapter.is_file():
        hooks, bad = adapter_hooks(adapter)
        gaps, unread = adapter_gaps(adapter)
        problems += [f"{where}: {p}" for p in bad + unread + unhonoured(adapter, hooks, honoured)]
    return Adaptation(env, tuple(files), requirements if has_requirements else None,
                      adapter if adapter.is_file() else None, hooks, gaps, tuple(problems))


# ---------------------------------------------------------------- environment files


def parse_env_file(path: Path) -> tuple[dict[str, str], list[str]]:
    """``NAME -> value`` of the file's assignments, and a problem per line it cannot read."""
    values: dict[str, str] = {}
    problems: list[str] = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        parsed = parse_env_line(line)
        if isinstance(parsed, str):
            problems.append(f"{path}:{number}: {parsed}")
        elif parsed is not None:
            values[parsed[0]] = parsed[1]
    return values, problems


def parse_env_line(line: str) -> tuple[str, str] | str | None:
    """(name, value), None for a blank or comment line, or what is wrong (a str)."""
    text = line.strip()
    if not text or text.startswith("#") or SHELL_OPTION.match(text):
        return None     # a shell option (FlagPerf's kunlunxin files start with `set -x`): no variable
    if _expands(text):
        return (f"{text!r}: {'$'} expansion and command substitution are not read: write the "
                "value itself, or quote it in single quotes to mean the characters")
    try:
        words = shlex.split(text, comments=True)
    except ValueError as exc:
        return f"cannot read {text!r} ({exc}): close the quote"
    if words and words[0] == "export":
        words = words[1:]
    if len(words) != 1 or "=" not in words[0]:
        return (f"{text!r} is not one `export NAME=value`: chipperf reads assignments only "
                "(no commands, conditions or several names on a line); write one per line")
    name, value = words[0].split("=", 1)
    if not NAME.match(name):
        return f"{name!r} is not a variable name: use letters, digits and _"
    if name in RESERVED:
        return f"{name} is set by chipperf's launch contract: remove it from this file"
    return name, value


def _expands(raw: str) -> bool:
    """The value as written would be expanded by a shell ($, `, outside single quotes)."""
    quoted = False
    for char in raw:
        if char == "'":
            quoted = not quoted
        elif char in "$`" and not quoted:
            return True
        elif char == "#" and not quoted:
            return False
    return False


# ---------------------------------------------------------------- requirements


def requirements_problems(path: Path) -> list[str]:
    """One problem per line that is neither a requirement (PEP 508) nor a wheel's or sdist's
    URL: pip options and other files belong in the test config's image settings
    (PIP_INDEX_URL, WHEELHOUSE)."""
    problems = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        text = line.split(" #", 1)[0].strip()
        if not text or text.startswith("#"):
            continue
        if text.startswith("-"):
            problems.append(f"{path}:{number}: {text!r}: pip options are not read here: set "
                            "the index, find-links and wheelhouse in the test config")
            continue
        if ARCHIVE_URL.match(text):
            continue     # a wheel or sdist by URL, as FlagPerf's kunlunxin files give torchvision
        try:
            Requirement(text)
        except InvalidRequirement as exc:
            problems.append(f"{path}:{number}: {text!r} is not a requirement ({exc}): write "
                            "`name`, `name==version`, `name>=version` or a wheel's URL")
    return problems


# ---------------------------------------------------------------- the trainer adapter


def adapter_hooks(path: Path) -> tuple[tuple[str, ...], list[str]]:
    """The hooks the adapter defines (top-level functions named in HOOKS), and its problems:
    a syntax error, a HOOKS list that is not literal names, a declared hook not defined, a
    hook beside one that replaces its step whole (``superseded``)."""
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    except SyntaxError as exc:
        return (), [f"{path}:{exc.lineno}: the trainer adapter does not parse ({exc.msg}): "
                    "fix it (the case would fail importing it)"]
    defined = {n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
    declared, problems = _declared(tree, path)
    problems += _flagperf_imports(tree, path)
    if declared is not None:
        missing = [n for n in declared if n not in defined]
        problems += [f"{path}: declares hook(s) {', '.join(missing)} in {DECLARED} but does not "
                     "define them: define them or remove them from the list"] if missing else []
        unknown = [n for n in declared if n not in HOOKS]
        problems += [f"{path}: {DECLARED} names {', '.join(unknown)}, which chipperf has no "
                     f"point for; hooks: {', '.join(HOOKS)}"] if unknown else []
    hooks = tuple(n for n in HOOKS if n in defined)
    return hooks, problems + [f"{path}: {clash}" for clash in superseded(hooks)]


def _flagperf_imports(tree: ast.Module, path: Path) -> list[str]:
    """A problem per import of a module of FlagPerf's own case code (its ``config``, ``utils``,
    ``driver``, ...) that the vendor folder does not hold itself: chipperf's case has none."""
    problems = []
    for node in ast.walk(tree):
        if not isinstance(node, (ast.Import, ast.ImportFrom)):
            continue
        names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
            [node.module or ""] if not node.level else []
        for name in names:
            top = name.split(".")[0]
            if top in FLAGPERF_MODULES and not _ships(path.parent, top):
                problems.append(f"{path}:{node.lineno}: imports {top}, a module of FlagPerf's "
                                "case code that chipperf's case does not have: take settings from "
                                "the hook's `config` argument (the case's parameters) instead")
    return problems


def _ships(extern: Path, module: str) -> bool:
    return (extern / f"{module}.py").is_file() or (extern / module).is_dir() or \
        (extern.parent / f"{module}.py").is_file() or (extern.parent / module).is_dir()


def _declared(tree: ast.Module, path: Path) -> tuple[list[str] | None, list[str]]:
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == DECLARED for t in node.targets):
            try:
                value = ast.literal_eval(node.value)
            except ValueError:
                value = None
            if isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value):
                return list(value), []
            return None, [f"{path}:{node.lineno}: {DECLARED} must be a literal list of hook "
                          "names: write them out"]
    return None, []


def adapter_gaps(path: Path) -> tuple[tuple[str, ...], list[str]]:
    """The adapter's NOT_CARRIED as "part: why" lines, and a problem when it is not a literal
    dict of strings (the file's syntax errors are adapter_hooks')."""
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    except SyntaxError:
        return (), []
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == NOT_CARRIED for t in node.targets):
            try:
                value = ast.literal_eval(node.value)
            except ValueError:
                value = None
            if isinstance(value, dict) and all(isinstance(k, str) and isinstance(v, str)
                                               for k, v in value.items()):
                return tuple(f"{k}: {v}" for k, v in value.items()), []
            return (), [f"{path}:{node.lineno}: {NOT_CARRIED} must be a literal dict of "
                        "{part: why} strings: write them out"]
    return (), []


def unhonoured(path: Path, hooks: tuple[str, ...], honoured: tuple[str, ...] | None) -> list[str]:
    """A problem for each hook the case's loop has no point for (it would be dropped)."""
    missing = [h for h in hooks if h not in (honoured or ())]
    if not missing:
        return []
    points = ", ".join(honoured) if honoured else "none"
    return [f"{path}: defines {', '.join(missing)}, which this case's training loop does not "
            f"call (its hook points: {points}): the vendor's figure would not be the vendor's; "
            "run a case whose loop calls them, or remove the hook"]


def case_hooks(meta: dict[str, Any]) -> tuple[str, ...] | None:
    """The hook points a case's case.yaml names (``adapter_hooks``), None when it names none."""
    value = meta.get(CASE_HOOKS_KEY)
    return tuple(str(v) for v in value) if isinstance(value, list) else None


def case_adaptation(catalogue: Any, vendor: str, model: str, family: str, where: str
                    ) -> Adaptation:
    """The adaptation of the vendor's case folder for ``model``/``family`` in ``catalogue``
    (a ``chipperf.suites.catalogue.Catalogue``); empty for other suites or a missing folder."""
    from chipperf.suites.catalogue import read_case_meta

    vendor_case = catalogue.vendor_cases.get((vendor, model, family))
    case_dir = catalogue.cases.get((model, family))
    if catalogue.suite.name != "training" or vendor_case is None or case_dir is None:
        return Adaptation()
    from chipperf_runtime.vendors import get_vendor, vendor_names

    devices_env = get_vendor(vendor).visible_devices_env if vendor in vendor_names() else None
    return read_adaptation(vendor_case.parent, vendor_case, f"{where}: vendor {vendor!r}",
                           case_hooks(read_case_meta(case_dir)), devices_env)
