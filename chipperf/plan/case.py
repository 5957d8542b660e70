"""What the plan reads of one case: its vendor config and knobs, its OVERRIDES as arguments,
its image folder and name (the checks and the planning both ask these)."""

from __future__ import annotations

import json
from pathlib import Path

import chipperf_runtime
from chipperf.config.adaptation import Adaptation, case_adaptation
from chipperf.config.model import CaseEntry, TestConfig
from chipperf.config.pyconfig import read_py_config
from chipperf.config.vendorconfig import (
    BASE_FILE,
    VendorConfig,
    check_vendor_config,
    translated_name,
)
from chipperf.frameworks import ImageChoice, choose_folder
from chipperf.suites.catalogue import Catalogue
from chipperf.suites.suite import Overrides, Suite

RUNTIME = Path(chipperf_runtime.__file__).resolve().parent


def adaptation(entry: CaseEntry, test: TestConfig, catalogue: Catalogue) -> Adaptation:
    """The vendor case folder's environment, requirements and trainer adapter."""
    key = entry.key
    return case_adaptation(catalogue, test.vendor, catalogue.case_name(key.model), key.family,
                           str(key))


def override_args(test: TestConfig, suite: Suite) -> tuple[str, ...]:
    """OVERRIDES as the case's --set NAME=VALUE arguments: a training case reads the values as
    Python literals, an inference case as YAML (JSON's spelling of a value is both)."""
    sets = inference_sets(test) if suite.overrides is Overrides.YAML else \
        tuple(f"{name}={value!r}" for name, value in test.overrides.items())
    return tuple(a for item in sets for a in ("--set", item))


def inference_sets(test: TestConfig) -> tuple[str, ...]:
    return tuple(f"{name}={json.dumps(value)}" for name, value in test.overrides.items())


def vendor_config(entry: CaseEntry, test: TestConfig, catalogue: Catalogue) -> VendorConfig:
    """The case's vendor config checked against its knobs (training cases that declare them)."""
    key = entry.key
    case_dir = catalogue.cases.get((key.model, key.family))
    vendor_dir = catalogue.vendor_cases.get((test.vendor, key.model, key.family))
    if not catalogue.suite.configs_are_python or case_dir is None or vendor_dir is None:
        return VendorConfig()
    vendor_file = vendor_dir / "config" / key.vendor_config_name
    if not vendor_file.is_file():
        return VendorConfig()
    return check_vendor_config(case_dir / "config", vendor_file, f"{key.model}:{key.family}",
                               (RUNTIME.parent,), key.nnodes * key.nproc)


def case_knobs(entry: CaseEntry, test: TestConfig, catalogue: Catalogue) -> dict[str, object]:
    """A training case's knobs as its driver will resolve them: ``_base.py`` under the vendor
    config's values ({} for a case that declares no knobs, or another suite)."""
    key = entry.key
    case_dir = catalogue.cases.get((key.model, key.family))
    if not catalogue.suite.configs_are_python or case_dir is None:
        return {}
    base = read_py_config(case_dir / "config" / BASE_FILE, (RUNTIME.parent,))
    return {**base.public(), **vendor_config(entry, test, catalogue).values}


def image_choice(framework: str, test: TestConfig, catalogue: Catalogue) -> ImageChoice:
    """The vendor's image folder for a case key's framework (FRAMEWORK_MATCH decides)."""
    folders = [f for (vendor, f) in catalogue.images if vendor == test.vendor]
    return choose_folder(framework, folders, test.framework_match)


def image_name(vendor: str, framework: str, test: TestConfig, catalogue: Catalogue) -> str:
    folder = image_choice(framework, test, catalogue).folder or framework
    return f"chipperf/{catalogue.suite.name}-{vendor}-{folder}".lower()


def config_file(entry: CaseEntry, test: TestConfig, catalogue: Catalogue) -> str:
    name = catalogue.vendor_config_name(entry.key, test.vendor)
    return translated_name(name) if vendor_config(entry, test, catalogue).translated else name
