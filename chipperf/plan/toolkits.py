"""base/'s TOOLKIT method in a plan: which vendor folder a toolkit key runs, what is
uploaded for it, the argument that sends the spec's entry to it, and what a plan says when
there is none (chipperf_runtime/base/methods.py: the folder rule and the output contract).

A toolkit key's model is ``<spec>-toolkit``; its folder is
``base/toolkits/<spec>/<vendor>/<chip>/`` when the chip has its own, else
``base/toolkits/<spec>/<vendor>/``, uploaded whole to ``code/toolkits/<spec>/<vendor>/``.
A vendor's shared sources, ``base/toolkits/_common/<vendor>/``, go with each (main.sh finds
them at ``$CHIPPERF_TOOLKIT_COMMON``). A folder's ``case.yaml`` may say ``not_run: <why>``
(never run by chipperf on that chip): every plan repeats it.
"""

from __future__ import annotations

from pathlib import Path

from chipperf.config.model import CaseEntry
from chipperf.plan.model import Upload
from chipperf.suites.catalogue import Catalogue, read_case_meta
from chipperf_runtime.base.methods import COMMON, FOLDER, find, is_toolkit_model, spec_of


def folder(entry: CaseEntry, vendor: str, catalogue: Catalogue) -> tuple[Path | None, list[Path]]:
    """The toolkit folder an entry runs (None: it has none) and the files looked for."""
    return find(catalogue.root / FOLDER, spec_of(entry.key.model), vendor, entry.key.chip)


def problems(entry: CaseEntry, vendor: str, catalogue: Catalogue, where: str) -> list[str]:
    if not is_toolkit_model(entry.key.model):
        return []
    found, looked = folder(entry, vendor, catalogue)
    if found is not None:
        return []
    have = sorted(v for s, v in catalogue.toolkits if s == spec_of(entry.key.model))
    return [f"{where}: vendor {vendor!r} has no toolkit for {spec_of(entry.key.model)} on chip "
            f"{entry.key.chip!r}: looked for {' and '.join(map(str, looked))}; add the vendor's "
            f"main.sh there (docs/base-and-operation.md, \"Toolkits\"), or run the spec with "
            f"BENCHMARKS_OR_TOOLKITS: \"BENCHMARK\" (toolkits for it: {', '.join(have) or 'none'})"]


def uploads(entry: CaseEntry, vendor: str, catalogue: Catalogue) -> tuple[Upload, ...]:
    """The vendor's whole toolkit folder of the spec (its chip folders with it), and the
    vendor's shared sources (``toolkits/_common/<vendor>/``) where it has them."""
    spec = spec_of(entry.key.model)
    if not is_toolkit_model(entry.key.model) or (spec, vendor) not in catalogue.toolkits:
        return ()
    common = catalogue.root / FOLDER / COMMON / vendor
    return (Upload(catalogue.toolkits[(spec, vendor)], f"code/{FOLDER}/{spec}/{vendor}"),
            *([Upload(common, f"code/{FOLDER}/{COMMON}/{vendor}")] if common.is_dir() else []))


def case_args(entry: CaseEntry, vendor: str, catalogue: Catalogue, code: str) -> tuple[str, ...]:
    """``--toolkit_dir <the uploaded folder>`` for a toolkit key; () for a benchmark key."""
    found, _ = folder(entry, vendor, catalogue) if is_toolkit_model(entry.key.model) else (None, [])
    if found is None:
        return ()
    return ("--toolkit_dir", f"{code}/{found.relative_to(catalogue.root).as_posix()}")


def notes(entry: CaseEntry, vendor: str, catalogue: Catalogue) -> tuple[str, ...]:
    """What the plan says of a toolkit key: the program that measures it, and its folder's
    ``not_run`` where chipperf never ran it."""
    found, _ = folder(entry, vendor, catalogue) if is_toolkit_model(entry.key.model) else (None, [])
    if found is None:
        return ()
    said = [f"{entry.key}: measured by the vendor's toolkit {found / 'main.sh'} (a figure of "
            "its own: never compared with the PyTorch benchmark's)"]
    why = read_case_meta(found).get("not_run")
    return tuple(said + ([f"{entry.key}: not run here: {why}"] if why else []))
