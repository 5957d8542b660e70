"""The text the cases' ``prepare_data.py`` scripts train on, and how they write it.

By default: the English prose already on any Debian machine with Python, nothing downloaded:
the Python language reference shipped in the standard library (``pydoc_data.topics``), the
docstrings of the standard library's modules, and the licence texts in
``/usr/share/common-licenses``. ``--source`` uses files or folders of text instead. About 1
document in ``--eval-every`` is held out for evaluation, chosen by a hash of its name.
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import json
import sysconfig
import zlib
from collections import deque
from pathlib import Path
from typing import Any, Iterator, Sequence

import numpy as np

LICENSES = Path("/usr/share/common-licenses")
TEXT_SUFFIXES = {".txt", ".md", ".rst", ".text", ""}
SKIPPED_PARTS = {"site-packages", "dist-packages", "test", "tests"}
# the nodes whose children may be statements (a docstring's owner is a statement or the module)
HOLDERS = (ast.stmt, ast.excepthandler, ast.match_case)
Document = tuple[str, str]          # (name, text)


def default_documents() -> Iterator[Document]:
    """Python's language reference topics, stdlib docstrings, licence texts."""
    import pydoc_data.topics as topics

    for key in sorted(topics.topics):
        yield f"pydoc_data.topics:{key}", topics.topics[key]
    yield from docstring_documents(Path(sysconfig.get_paths()["stdlib"]))
    yield from file_documents([LICENSES])


def docstring_documents(stdlib: Path) -> Iterator[Document]:
    """One document per standard-library module: its docstrings, in source order."""
    for file in sorted(stdlib.rglob("*.py")):
        if SKIPPED_PARTS & set(file.parts):
            continue
        try:
            tree = ast.parse(file.read_text(encoding="utf-8"))
        except (SyntaxError, UnicodeDecodeError, ValueError):
            continue
        docs = [ast.get_docstring(node) for node in statements(tree) if isinstance(
            node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))]
        text = "\n\n".join(d for d in docs if d)
        if text:
            yield f"stdlib:{file.relative_to(stdlib)}", text


def statements(tree: ast.Module) -> Iterator[ast.AST]:
    """The module and the nodes that may hold statements, in ``ast.walk``'s order (breadth
    first): a docstring's owner is never inside an expression, so expressions, the bulk of a
    tree, are not visited."""
    todo: deque[ast.AST] = deque([tree])
    while todo:
        node = todo.popleft()
        todo.extend(child for child in ast.iter_child_nodes(node) if isinstance(child, HOLDERS))
        yield node


def file_documents(paths: Sequence[Path]) -> Iterator[Document]:
    """Each text file under ``paths`` once (links to the same file read once)."""
    seen: set[Path] = set()
    for path in paths:
        files = sorted(path.rglob("*")) if path.is_dir() else [path]
        for file in files:
            real = file.resolve()
            if real in seen or not real.is_file() or file.suffix.lower() not in TEXT_SUFFIXES:
                continue
            seen.add(real)
            yield str(file), real.read_text(encoding="utf-8", errors="replace")


def is_eval(name: str, eval_every: int) -> bool:
    """Hold out about 1/eval_every of the documents, chosen by a hash of their name."""
    return zlib.crc32(name.encode()) % eval_every == 0


def sources(documents: Sequence[Document]) -> list[dict[str, Any]]:
    """meta.json's record of what went in: name, characters, sha256 of each document."""
    return [{"name": n, "chars": len(t), "sha256": hashlib.sha256(t.encode()).hexdigest()}
            for n, t in documents]


def write_shards(folder: Path, items: np.ndarray, per_shard: int) -> list[str]:
    """``items`` cut along its first axis into ``folder/shard_00000.npy``, ...; their names."""
    folder.mkdir(parents=True, exist_ok=True)
    names = []
    for i, start in enumerate(range(0, len(items), per_shard)):
        name = f"shard_{i:05d}.npy"
        np.save(folder / name, items[start:start + per_shard])
        names.append(name)
    return names


def write_meta(output: Path, meta: dict[str, Any]) -> None:
    (output / "meta.json").write_text(json.dumps(meta, indent=1) + "\n", encoding="utf-8")


# ---------------------------------------------------------------- the command line


def parser(description: str) -> argparse.ArgumentParser:
    """--output, --source, --eval-every: what every prepare_data.py takes."""
    p = argparse.ArgumentParser(description=description)
    p.add_argument("--output", required=True, type=Path)
    p.add_argument("--source", action="append", type=Path, default=[],
                   help="text file or folder (repeatable); default: pydoc topics, stdlib "
                        "docstrings, licences")
    p.add_argument("--eval-every", type=int, default=10)
    return p


def documents(p: argparse.ArgumentParser, args: argparse.Namespace) -> list[Document]:
    """The documents of ``--source`` (default: the machine's own); exits when there are none."""
    found = list(file_documents(args.source) if args.source else default_documents())
    if not found:
        p.error("no text documents found in the sources")
    return found
