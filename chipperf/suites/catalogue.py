"""The case catalogue, found by folder convention under a suite root.

``training/``::

    benchmarks/<model>/<family>/run_pretraining.py      standard case code
    <vendor>/<model>-<family>/config/config_<chip>x<nnodes>x<nproc>.py   vendor case
    <vendor>/docker_image/<framework>/Dockerfile         vendor image per framework

``inference/``::

    benchmarks/<model>/<family>/run_inference.py         standard case code
    configs/<model>/configuration.yaml                   the case's settings
    configs/<model>/vendor_config/<vendor>_configuration.yaml   vendor overrides
    (FlagPerf's configurations.yaml, parameters.yaml and <vendor>_configurations.yaml too)
    <vendor>/docker_image/<framework>/Dockerfile         vendor image per framework

``base/`` and ``operation/`` (one folder per spec or operator)::

    benchmarks/<spec or op>/pytorch/main.py              the program
    configs/vendor_config/<vendor>_configuration.yaml    the vendor's sizes and repetitions
    toolkits/<spec>/<vendor>/[<chip>/]main.sh            base/: the vendor's own program
    <vendor>/docker_image/<framework>/Dockerfile         vendor image per framework

Code shared by cases is not here: it is the case runtime (``chipperf_runtime``: the training
driver and model families, the inference, base and operation helpers), uploaded with every
case. ``Catalogue.scan`` reads the tree once, by the suite's conventions (its
``Suite.scanner``: ``scan_training``, ``scan_inference`` or ``scan_specs`` below); planning
then uses only this frozen view.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Mapping

import yaml

from chipperf.suites import DEFAULT_SUITE, Suite, get_suite
from chipperf.suites.suite import REPO
from chipperf_runtime.base.methods import FOLDER as TOOLKIT_FOLDER
from chipperf_runtime.base.methods import MAIN as TOOLKIT_MAIN

if TYPE_CHECKING:
    from chipperf.config.model import CaseKey

ENTRY = "run_pretraining.py"
INFERENCE_ENTRY = "run_inference.py"
# chipperf's vendor file, and FlagPerf's name for it
INFERENCE_VENDOR_SUFFIX = "_configuration.yaml"
FLAGPERF_VENDOR_SUFFIX = "_configurations.yaml"
SPEC_ENTRY = "main.py"
# What a vendor case's per-topology configs import (STYLE.md 16); not a topology of its own.
COMMON_CONFIG = "config_common.py"


def default_training_dir() -> Path:
    return REPO / "training"


def default_suite_dir(suite: str) -> Path:
    return REPO / suite


@dataclass(frozen=True)
class Catalogue:
    root: Path
    # (model, family) -> standard case dir (holds the suite's entry)
    cases: Mapping[tuple[str, str], Path] = field(default_factory=dict)
    # (vendor, model, family) -> vendor case dir
    vendor_cases: Mapping[tuple[str, str, str], Path] = field(default_factory=dict)
    # (vendor, model, family) -> names of the vendor's config files
    vendor_configs: Mapping[tuple[str, str, str], frozenset[str]] = field(default_factory=dict)
    # (vendor, framework) -> image build context dir (holds Dockerfile)
    images: Mapping[tuple[str, str], Path] = field(default_factory=dict)
    suite: Suite = field(default_factory=lambda: get_suite(DEFAULT_SUITE))
    # base/: (spec, vendor) -> toolkits/<spec>/<vendor>/ (main.sh there or in a chip folder)
    toolkits: Mapping[tuple[str, str], Path] = field(default_factory=dict)

    @property
    def entry(self) -> str:
        return self.suite.entry

    @property
    def config_subdir(self) -> str:
        """Where the vendor config file sits inside the uploaded vendor case folder."""
        return self.suite.config_subdir

    def vendor_config_name(self, key: "CaseKey", vendor: str) -> str:
        return self.suite.vendor_config_name(key, vendor)

    def case_name(self, model: str) -> str:
        """The case folder of a key's model (an operation key's model is <op>-<DTYPE>-<provider>)."""
        return self.suite.case_of_model(model)

    @classmethod
    def scan(cls, root: Path, suite: str | Suite = DEFAULT_SUITE) -> "Catalogue":
        return (get_suite(suite) if isinstance(suite, str) else suite).scan(root)


def _standard_cases(root: Path, entry: str) -> dict[tuple[str, str], Path]:
    """(model, family) -> benchmarks/<model>/<family>/, the folders holding ``entry``."""
    return {(p.parent.parent.name, p.parent.name): p.parent
            for p in sorted((root / "benchmarks").glob(f"*/*/{entry}"))}


def _images(root: Path) -> dict[tuple[str, str], Path]:
    """(vendor, framework) -> <vendor>/docker_image/<framework>/ (holds a Dockerfile)."""
    return {(d.parent.parent.parent.name, d.parent.name): d.parent
            for d in sorted(root.glob("*/docker_image/*/Dockerfile"))}


def scan_training(root: Path, suite: Suite) -> Catalogue:
    """Vendor cases are folders <vendor>/<model>-<family>/config/config_*.py."""
    cases = _standard_cases(root, suite.entry)
    vendor_cases, vendor_configs, images = {}, {}, {}
    for vendor_dir in sorted(p for p in root.iterdir() if p.is_dir()) if root.is_dir() else []:
        if vendor_dir.name in ("benchmarks", "run_benchmarks") or vendor_dir.name.startswith("."):
            continue
        for case_dir in sorted(p for p in vendor_dir.iterdir() if p.is_dir() and "-" in p.name):
            model, family = case_dir.name.rsplit("-", 1)
            key = (vendor_dir.name, model, family)
            vendor_cases[key] = case_dir
            vendor_configs[key] = frozenset(p.name for p in (case_dir / "config").glob("config_*.py")
                                            if p.name != COMMON_CONFIG)
        for dockerfile in sorted((vendor_dir / "docker_image").glob("*/Dockerfile")):
            images[(vendor_dir.name, dockerfile.parent.name)] = dockerfile.parent
    return Catalogue(root, cases, vendor_cases, vendor_configs, images, suite)


def scan_inference(root: Path, suite: Suite) -> Catalogue:
    """Vendors are the files in configs/<model>/vendor_config/ of each case."""
    cases = _standard_cases(root, suite.entry)
    vendor_cases, vendor_configs = {}, {}
    for (model, family) in cases:
        config_dir = root / "configs" / model
        for vendor in _inference_vendors(config_dir / "vendor_config"):
            vendor_cases[(vendor, model, family)] = config_dir
            # the case reads both forms of the vendor's file under this one name
            vendor_configs[(vendor, model, family)] = frozenset({f"{vendor}{INFERENCE_VENDOR_SUFFIX}"})
    return Catalogue(root, cases, vendor_cases, vendor_configs, _images(root), suite)


def scan_specs(root: Path, suite: Suite) -> Catalogue:
    """base/ and operation/: one configs/vendor_config/<vendor>_configuration.yaml serves
    every spec or operator."""
    cases = _standard_cases(root, suite.entry)
    config_dir = root / "configs" / "vendor_config"
    vendor_cases, vendor_configs = {}, {}
    for vendor_file in sorted(config_dir.glob(f"*{INFERENCE_VENDOR_SUFFIX}")):
        vendor = vendor_file.name[: -len(INFERENCE_VENDOR_SUFFIX)]
        for (model, family) in cases:
            vendor_cases[(vendor, model, family)] = config_dir
            vendor_configs[(vendor, model, family)] = frozenset({vendor_file.name})
    return Catalogue(root, cases, vendor_cases, vendor_configs, _images(root), suite,
                     _toolkits(root))


def _toolkits(root: Path) -> dict[tuple[str, str], Path]:
    """(spec, vendor) -> toolkits/<spec>/<vendor>/, the folders with a main.sh in them or in
    a chip folder of theirs."""
    found = sorted({p.parent for p in root.glob(f"{TOOLKIT_FOLDER}/*/*/{TOOLKIT_MAIN}")} |
                   {p.parent.parent for p in root.glob(f"{TOOLKIT_FOLDER}/*/*/*/{TOOLKIT_MAIN}")})
    return {(d.parent.name, d.name): d for d in found}


def _inference_vendors(folder: Path) -> list[str]:
    """Vendors with a file in ``vendor_config/``, in chipperf's or FlagPerf's name."""
    vendors: set[str] = set()
    for suffix in (INFERENCE_VENDOR_SUFFIX, FLAGPERF_VENDOR_SUFFIX):
        vendors.update(p.name[: -len(suffix)] for p in folder.glob(f"*{suffix}"))
    return sorted(vendors)


def read_case_meta(case_dir: Path) -> dict[str, Any]:
    """The case folder's case.yaml as a dict ({} when it has none)."""
    path = case_dir / "case.yaml"
    if not path.is_file():
        return {}
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    return data if isinstance(data, dict) else {}
