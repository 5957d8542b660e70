"""Read a FlagPerf-form ``.py`` config as data: a small evaluator over its syntax tree.

Nothing in the file is executed. What FlagPerf's configs actually contain is understood:

- literals (numbers, strings, lists, tuples, dicts, sets, True/False/None), negative numbers;
- names assigned earlier in the same file (or brought in by a star import), annotated or not;
- ``+`` on strings, lists and tuples, and arithmetic on numbers (``2**20``, ``4500000 * 8``);
- f-strings of those names, ``os.path.join(...)`` of strings, ``dict(key=value, ...)``;
- ``from config_common import *`` (or ``import a, b``) of a sibling file in the same folder,
  read the same way; ``import os``.

Anything else (calling a function, control flow, importing a name from a package, a
statement with an effect) is a problem naming file and line: the config needs real
execution, which chipperf will not do. Every problem of the file, and of the files it
imports, is collected; a syntax error is one problem with its line.
"""

from __future__ import annotations

import ast
import operator
import os.path
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from chipperf.config.textread import read_utf8
from chipperf.errors import ConfigError

_ARITHMETIC: dict[type, Callable[[Any, Any], Any]] = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
    ast.Div: operator.truediv, ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod,
    ast.Pow: operator.pow,
}
_MAX_EXPONENT = 1024
_NO_EXECUTION = "chipperf reads configs as data and runs no code: write the value itself"


class _Refused(Exception):
    """One expression that cannot be evaluated as data (the message says why)."""


class _Unreadable:
    """A name whose value could not be read (its problem is reported where it was set)."""

    def __init__(self, kind: str):
        self.kind = kind


_OS = _Unreadable("module os")


@dataclass
class PyConfig:
    """Public names -> values, where each was set (file, line), and every problem found."""

    path: Path
    values: dict[str, Any] = field(default_factory=dict)
    lines: dict[str, tuple[Path, int]] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)
    fatal: bool = False        # the file could not be parsed at all
    # names set by calling a library's function (``grad_scaler = GradScaler()``) -> the problem
    # reported for it (also in ``problems``): a reader that knows the name may note it instead
    calls: dict[str, str] = field(default_factory=dict)

    def public(self) -> dict[str, Any]:
        return {k: v for k, v in self.values.items()
                if not k.startswith("_") and not isinstance(v, _Unreadable)}

    def unreadable(self) -> list[str]:
        """Names set in the file whose value could not be read (each has its problem)."""
        return [k for k, v in self.values.items() if isinstance(v, _Unreadable)]

    def where(self, name: str) -> str:
        path, line = self.lines.get(name, (self.path, 0))
        return f"{path}:{line}" if line else str(path)


def read_py_config(path: Path, packages: tuple[Path, ...] = (),
                   _reading: tuple[Path, ...] = ()) -> PyConfig:
    """Evaluate ``path`` as data (see the module doc); never raises for bad content.

    ``packages``: folders where a dotted module (``from chipperf_runtime.training.textlm.bert_base
    import *``) is looked up as ``<folder>/chipperf_runtime/training/textlm/bert_base.py`` (the
    folder that holds the case runtime)."""
    path = Path(path)
    config = PyConfig(path)
    try:
        tree = ast.parse(read_utf8(path), filename=str(path))
    except ConfigError as exc:   # unreadable, or not UTF-8: the problem says which
        config.problems.extend(exc.problems)
        config.fatal = True
        return config
    except SyntaxError as exc:
        where = f"{path}:{exc.lineno}" if exc.lineno else str(path)
        config.problems.append(f"{where}: Python syntax error: {exc.msg}: fix the syntax")
        config.fatal = True
        return config
    except ValueError as exc:   # null bytes: Python before 3.11.4 (Debian 12's 3.11.2) says so here
        config.problems.append(f"{path}: Python syntax error: {exc}: fix the syntax")
        config.fatal = True
        return config
    reader = _Reader(config, (*_reading, path.resolve()), packages)
    for node in tree.body:
        reader.statement(node)
    return config


class _Reader:
    def __init__(self, config: PyConfig, reading: tuple[Path, ...], packages: tuple[Path, ...]):
        self.config, self.reading, self.packages = config, reading, packages

    def problem(self, line: int, text: str) -> None:
        self.config.problems.append(f"{self.config.path}:{line}: {text}")

    def set(self, name: str, value: Any, line: int) -> None:
        self.config.values[name] = value
        self.config.lines[name] = (self.config.path, line)

    # ------------------------------------------------------------ statements

    def statement(self, node: ast.stmt) -> None:
        if isinstance(node, ast.Assign):
            self._assign(node.targets, node.value, node.lineno)
        elif isinstance(node, ast.AnnAssign):
            if node.value is not None:
                self._assign([node.target], node.value, node.lineno)
        elif isinstance(node, ast.AugAssign):
            self._augment(node)
        elif isinstance(node, ast.ImportFrom):
            self._import_from(node)
        elif isinstance(node, ast.Import):
            self._import(node)
        elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
            return  # a docstring or a bare string used as a comment
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            self.set(node.name, _Unreadable(f"definition of {node.name}"), node.lineno)
        else:
            self.problem(node.lineno, f"{_statement_name(node)} needs real execution: "
                         f"{_NO_EXECUTION}")

    def _assign(self, targets: list[ast.expr], value_node: ast.expr, line: int) -> None:
        names = [t.id for t in targets if isinstance(t, ast.Name)]
        if len(names) != len(targets):
            self.problem(line, f"only plain names can be assigned ({_source(targets[0])} is not "
                         "one): write NAME = value")
            return
        value = self.value(names[0], value_node)
        for name in names:
            self.set(name, value, line)

    def _augment(self, node: ast.AugAssign) -> None:
        if not isinstance(node.target, ast.Name):
            self.problem(node.lineno, "only plain names can be assigned: write NAME = value")
            return
        name = node.target.id
        combined = ast.BinOp(left=ast.Name(id=name, ctx=ast.Load()), op=node.op, right=node.value)
        ast.copy_location(combined, node)
        self.set(name, self.value(name, combined), node.lineno)

    def value(self, name: str, node: ast.expr) -> Any:
        try:
            return _Expression(self.config.values).eval(node)
        except _Refused as exc:
            self.problem(node.lineno, f"{name}: {exc}")
            if self._library_call(node):
                self.config.calls[name] = self.config.problems[-1]
            return _Unreadable(f"value of {name}")
        except _Blocked:
            return _Unreadable(f"value of {name}")

    def _library_call(self, node: ast.expr) -> bool:
        """``node`` calls a name imported from a library (``GradScaler(...)``, ``os.getenv(...)``)."""
        func = node.func if isinstance(node, ast.Call) else None
        while isinstance(func, ast.Attribute):
            func = func.value
        bound = self.config.values.get(func.id) if isinstance(func, ast.Name) else None
        return isinstance(bound, _Unreadable) and (bound.kind.startswith("module ")
                                                   or " from " in bound.kind)

    def _import(self, node: ast.Import) -> None:
        for alias in node.names:
            bound = alias.asname or alias.name.split(".")[0]
            self.set(bound, _OS if alias.name in ("os", "os.path") and bound == "os"
                     else _Unreadable(f"module {alias.name}"), node.lineno)

    def _import_from(self, node: ast.ImportFrom) -> None:
        sibling = self._module_file(node)
        if sibling is None:
            self._opaque_import(node)
            return
        if not sibling.is_file():
            if node.names[0].name == "*":
                self.problem(node.lineno, f"from {node.module} import *: no file {sibling}: add it "
                             "beside this config, or remove the import")
            else:
                self._opaque_import(node)
            return
        if sibling.resolve() in self.reading:
            self.problem(node.lineno, f"from {node.module} import ...: {sibling} imports itself "
                         "(directly or through another file): remove the circle")
            return
        self._take(read_py_config(sibling, self.packages, self.reading), node)

    def _module_file(self, node: ast.ImportFrom) -> Path | None:
        """The config file a ``from X import`` reads: a sibling, or a dotted module in a package
        folder; None for anything else (a library)."""
        if node.level or not node.module:
            return None
        if "." not in node.module:
            return self.config.path.parent / f"{node.module}.py"
        relative = Path(*node.module.split(".")).with_suffix(".py")
        return next((root / relative for root in self.packages if (root / relative).is_file()), None)

    def _take(self, imported: PyConfig, node: ast.ImportFrom) -> None:
        self.config.problems += imported.problems
        star = node.names[0].name == "*"
        pairs = ([(n, n) for n in imported.values if not n.startswith("_")] if star
                 else [(a.name, a.asname or a.name) for a in node.names])
        for name, bound in pairs:
            if name not in imported.values:
                self.problem(node.lineno, f"from {node.module} import {name}: {imported.path} "
                             f"does not set {name}")
                continue
            self.config.values[bound] = imported.values[name]
            self.config.lines[bound] = imported.lines.get(name, (imported.path, 0))
            if name in imported.calls:
                self.config.calls[bound] = imported.calls[name]

    def _opaque_import(self, node: ast.ImportFrom) -> None:
        for alias in node.names:
            if alias.name == "*":
                self.problem(node.lineno, f"from {'.' * node.level}{node.module or ''} import *: "
                             f"only a sibling config file can be star-imported: {_NO_EXECUTION}")
                continue
            self.set(alias.asname or alias.name,
                     _Unreadable(f"{alias.name} from {node.module}"), node.lineno)


def _hashable(value: Any, node: ast.expr) -> Any:
    """``value`` when it can be a dict key or set member, else _Refused saying so."""
    try:
        hash(value)
    except TypeError:
        raise _Refused(f"{_source(node)!r} cannot be a key or a set member (a "
                       f"{type(value).__name__}): use a string or a number") from None
    return value


class _Blocked(Exception):
    """The expression uses a name whose own problem is already reported."""


class _Expression:
    """Evaluates one expression against the names read so far."""

    def __init__(self, names: dict[str, Any]):
        self.names = names

    def eval(self, node: ast.expr) -> Any:
        method = getattr(self, f"_{type(node).__name__}", None)
        if method is None:
            raise _Refused(f"{_source(node)!r} needs real execution: {_NO_EXECUTION}")
        return method(node)

    def _Constant(self, node: ast.Constant) -> Any:
        return node.value

    def _List(self, node: ast.List) -> list[Any]:
        return [self.eval(e) for e in node.elts]

    def _Tuple(self, node: ast.Tuple) -> tuple[Any, ...]:
        return tuple(self.eval(e) for e in node.elts)

    def _Set(self, node: ast.Set) -> set[Any]:
        return {_hashable(self.eval(e), e) for e in node.elts}

    def _Dict(self, node: ast.Dict) -> dict[Any, Any]:
        """A dict literal; a key given twice is refused (Python would keep the last silently,
        as YAML would: chipperf refuses both)."""
        out: dict[Any, Any] = {}
        lines: dict[Any, int] = {}
        for key, value in zip(node.keys, node.values):
            if key is None:
                raise _Refused("'**' inside a dict needs real execution: list the keys")
            name = _hashable(self.eval(key), key)
            if name in lines:
                raise _Refused(f"key {name!r} is given twice (lines {lines[name]} and "
                               f"{key.lineno}): keep one of them")
            lines[name] = key.lineno
            out[name] = self.eval(value)
        return out

    def _Name(self, node: ast.Name) -> Any:
        if node.id not in self.names:
            raise _Refused(f"uses {node.id}, which is not set above this line: set it first")
        value = self.names[node.id]
        if not isinstance(value, _Unreadable):
            return value
        if value.kind.startswith("value of"):
            raise _Blocked()
        raise _Refused(f"uses {node.id} ({value.kind}): {_NO_EXECUTION}")

    def _UnaryOp(self, node: ast.UnaryOp) -> Any:
        operand = self.eval(node.operand)
        if isinstance(node.op, (ast.USub, ast.UAdd)) and _is_number(operand):
            return -operand if isinstance(node.op, ast.USub) else operand
        if isinstance(node.op, ast.Not) and isinstance(operand, bool):
            return not operand
        raise _Refused(f"{_source(node)!r}: only '-' on a number is read: {_NO_EXECUTION}")

    def _BinOp(self, node: ast.BinOp) -> Any:
        left, right = self.eval(node.left), self.eval(node.right)
        if isinstance(node.op, ast.Add) and _same_sequence(left, right):
            return left + right
        if type(node.op) in _ARITHMETIC and _is_number(left) and _is_number(right):
            if isinstance(node.op, ast.Pow) and abs(right) > _MAX_EXPONENT:
                raise _Refused(f"{_source(node)!r}: exponent over {_MAX_EXPONENT}")
            try:
                return _ARITHMETIC[type(node.op)](left, right)
            except ArithmeticError as exc:
                raise _Refused(f"{_source(node)!r}: {exc}") from exc
        raise _Refused(f"{_source(node)!r}: {_kind(left)} {_op(node.op)} {_kind(right)} is not read "
                       "(only '+' on strings, lists or tuples, and arithmetic on numbers)")

    def _JoinedStr(self, node: ast.JoinedStr) -> str:
        return "".join(self.eval(part) if isinstance(part, ast.Constant) else self._part(part)
                       for part in node.values)

    def _part(self, node: ast.expr) -> str:
        if not isinstance(node, ast.FormattedValue):
            raise _Refused(f"{_source(node)!r} in an f-string needs real execution")
        value = self.eval(node.value)
        if not isinstance(value, (str, int, float, bool)) and value is not None:
            raise _Refused(f"f-string part {_source(node.value)!r} is a {_kind(value)}: "
                           "use strings and numbers")
        value = {-1: value, 115: str(value), 114: repr(value), 97: ascii(value)}[node.conversion]
        spec = self._JoinedStr(node.format_spec) if isinstance(node.format_spec, ast.JoinedStr) else ""
        try:
            return format(value, spec)
        except ValueError as exc:
            raise _Refused(f"f-string format {spec!r}: {exc}") from exc

    def _Call(self, node: ast.Call) -> Any:
        name = _source(node.func)
        if name == "os.path.join" and isinstance(node.func, ast.Attribute) and self._is_os(node.func):
            return self._path_join(node)
        if name == "dict" and "dict" not in self.names and not node.args:
            return self._dict_call(node)
        raise _Refused(f"calls {name}(), which needs real execution: {_NO_EXECUTION}")

    def _is_os(self, func: ast.Attribute) -> bool:
        inner = func.value
        return (isinstance(inner, ast.Attribute) and isinstance(inner.value, ast.Name)
                and self.names.get(inner.value.id) is _OS)

    def _path_join(self, node: ast.Call) -> str:
        parts = [self.eval(a) for a in node.args]
        if node.keywords or not parts or not all(isinstance(p, str) for p in parts):
            raise _Refused("os.path.join() takes strings here")
        return os.path.join(*parts)

    def _dict_call(self, node: ast.Call) -> dict[str, Any]:
        if any(k.arg is None for k in node.keywords):
            raise _Refused("dict(**...) needs real execution: list the keys")
        return {k.arg: self.eval(k.value) for k in node.keywords if k.arg is not None}


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _same_sequence(left: Any, right: Any) -> bool:
    return any(isinstance(left, t) and isinstance(right, t) for t in (str, list, tuple))


def _kind(value: Any) -> str:
    return "number" if _is_number(value) else type(value).__name__


def _op(op: ast.operator) -> str:
    return {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//",
            ast.Mod: "%", ast.Pow: "**"}.get(type(op), type(op).__name__)


def _source(node: ast.AST) -> str:
    try:
        return ast.unparse(node)
    except (AttributeError, ValueError):  # unparse is best effort for messages
        return type(node).__name__


def _statement_name(node: ast.stmt) -> str:
    if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
        return f"a call to {_source(node.value.func)}()"
    kind = type(node).__name__.lower()
    return f"{'an' if kind[0] in 'aeiou' else 'a'} {kind} statement"
