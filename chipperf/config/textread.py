"""Reading a config file's text and YAML: UTF-8 only, said clearly when it is not, and
YAML mappings that refuse a key written twice (PyYAML keeps the last one silently)."""

from __future__ import annotations

import codecs
from pathlib import Path
from typing import Any

import yaml

from chipperf.errors import ConfigError

_BOMS = ((codecs.BOM_UTF32_LE, "UTF-32"), (codecs.BOM_UTF32_BE, "UTF-32"),
         (codecs.BOM_UTF16_LE, "UTF-16"), (codecs.BOM_UTF16_BE, "UTF-16"))
SAVE_AS_UTF8 = "save it as UTF-8 (e.g. iconv -t UTF-8, or your editor's encoding menu)"


def read_utf8(path: Path) -> str:
    """The file's text; ConfigError naming the encoding when it is not UTF-8 (a UTF-8 byte
    order mark is allowed and dropped)."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise ConfigError([f"{path}: cannot be read ({exc.strerror or exc}): give a readable "
                           "file"]) from exc
    return decode_utf8(path, data)


def decode_utf8(path: Path, data: bytes) -> str:
    for bom, name in _BOMS:
        if data.startswith(bom):
            raise ConfigError([f"{path}: the file is {name}-encoded; chipperf reads UTF-8 "
                               f"configs: {SAVE_AS_UTF8}"])
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise ConfigError([f"{path}:{line}: byte 0x{data[exc.start]:02x} is not UTF-8 (the "
                           f"file looks like Latin-1 or another 8-bit encoding): "
                           f"{SAVE_AS_UTF8}"]) from None


class _UniqueKeyLoader(yaml.SafeLoader):
    """A SafeLoader whose mappings refuse a key given twice."""


def _unique_mapping(loader: _UniqueKeyLoader, node: yaml.MappingNode, deep: bool = False
                    ) -> dict[Any, Any]:
    seen: dict[Any, int] = {}
    for key_node, _ in node.value:
        if key_node.tag == "tag:yaml.org,2002:merge":
            continue  # '<<: *base': the keys written beside it override the merged ones
        key = loader.construct_object(key_node, deep=True)  # type: ignore[no-untyped-call]
        line = key_node.start_mark.line + 1
        try:
            first = seen.setdefault(key, line)
        except TypeError:
            continue  # an unhashable key: construct_mapping below names it
        if first != line:
            raise yaml.constructor.ConstructorError(
                None, None, f"key {key!r} is given twice (lines {first} and {line})",
                key_node.start_mark)
    loader.flatten_mapping(node)
    return loader.construct_mapping(node, deep=deep)


_UniqueKeyLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _unique_mapping)


def load_yaml(path: Path, text: str) -> Any:
    """The YAML document of ``text``; ConfigError for bad syntax or a key given twice."""
    try:
        return yaml.load(text, Loader=_UniqueKeyLoader)  # noqa: S506 (a SafeLoader subclass)
    except yaml.constructor.ConstructorError as exc:
        if "given twice" in str(exc.problem):
            line = exc.problem_mark.line + 1 if exc.problem_mark else 0
            raise ConfigError([f"{path}:{line}: {exc.problem}: keep one of them"]) from exc
        raise ConfigError([f"{path}: not valid YAML: {exc}: fix the syntax"]) from exc
    except yaml.YAMLError as exc:
        raise ConfigError([f"{path}: not valid YAML: {exc}: fix the syntax"]) from exc
