"""Every reason the configs cannot run, as 'where: what is wrong: how to fix', all at once,
split into what no case can run with and each case key's own (``--keep-going``)."""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Mapping

from chipperf.config import megatron_core
from chipperf.config.adaptation import case_adaptation
from chipperf.config.caseneeds import needs_problems
from chipperf.config.limits import did_you_mean
from chipperf.config.model import CaseEntry, CaseKey, ClusterConfig, SkippedCase, TestConfig
from chipperf.config.pyconfig import read_py_config
from chipperf.config.runlength import data_mode_problems, run_mode_problems
from chipperf.config.vendorconfig import (
    BASE_FILE,
    check_overrides,
    reading_once,
)
from chipperf.containers.images import base_images
from chipperf.containers.options import parse_cli_options
from chipperf.launchers import launcher_names
from chipperf.plan import toolkits
from chipperf.plan.case import (
    RUNTIME,
    adaptation,
    case_knobs,
    image_choice,
    inference_sets,
    vendor_config,
)
from chipperf.plan.chiplayout import chip_layout_problems
from chipperf.plan.chipowner import foreign_chip_problem
from chipperf.plan.engines import engine_image_problems, harness_image_problems
from chipperf.plan.imageneeds import NeedFix, image_needs_problems
from chipperf.plan.libraries import LIBRARY_KEY, library_problems
from chipperf.plan.sweep import sweep_problems
from chipperf.plan.torchxla import torch_xla_problems, vendor_family
from chipperf.results.compute.measured import read_measured_peaks
from chipperf.suites.catalogue import Catalogue, read_case_meta
from chipperf.suites.suite import Overrides
from chipperf_runtime.inference.config import read_layers as read_inference_layers
from chipperf_runtime.inference.loadgen_rules import scenario_problems
from chipperf_runtime.vendors import get_vendor, vendor_names


def check(cluster: ClusterConfig, test: TestConfig, catalogue: Catalogue,
          where: str = "test config", names: Mapping[str, str] | None = None) -> list[str]:
    """Every reason the configs cannot run, as 'where: what: how to fix'. ``names``: a
    setting's key -> the name the config file wrote it as (chipperf.config.fields.RawConfig),
    so that a problem names what is in the file (FLAGPERF_LOG_PATH for RESULT_ROOT)."""
    return checked(cluster, test, catalogue, where, names).problems


@dataclass(frozen=True)
class Checked:
    """``check``'s verdict, split: what no case can run with, and each case key's own."""

    general: tuple[str, ...]
    cases: Mapping[str, tuple[str, ...]]     # case key (as written) -> its problems

    @property
    def problems(self) -> list[str]:
        return [*self.general, *(p for problems in self.cases.values() for p in problems)]

    def skippable(self, test: TestConfig) -> tuple[TestConfig, tuple[SkippedCase, ...]]:
        """``test`` less the cases that have problems, and those cases with why (--keep-going)."""
        skipped = tuple(SkippedCase(key, problems) for key, problems in self.cases.items() if problems)
        bad = {s.key for s in skipped}
        kept = tuple(e for e in test.cases if str(e.key) not in bad)
        return replace(test, cases=kept, skipped=test.skipped + skipped), skipped


def checked(cluster: ClusterConfig, test: TestConfig, catalogue: Catalogue,
            where: str = "test config", names: Mapping[str, str] | None = None) -> Checked:
    """``check``, with each case's problems apart from the rest."""
    named = {"vendor": "VENDOR", "result_root": "RESULT_ROOT", "measured_peaks": "MEASURED_PEAKS",
             "container_opt": "ACCE_CONTAINER_OPT", **(names or {})}
    problems: list[str] = []
    if test.vendor and test.vendor not in vendor_names():
        problems.append(f"{where}: {named['vendor']} {test.vendor!r} is unknown"
                        f"{did_you_mean(test.vendor, vendor_names())}: use one of "
                        f"{', '.join(vendor_names())} (vendor modules live in chipperf_runtime/vendors/)")
    problems += [f"{where}: {named['result_root']} {test.result_root!r}: {p}"
                 for p in result_root_problems(Path(test.result_root))]
    if test.measured_peaks:
        _, peak_problems = read_measured_peaks(Path(test.measured_peaks))
        problems += [f"{where}: {named['measured_peaks']}: {p}" for p in peak_problems]
    _, option_problems = parse_cli_options(test.container_opt)
    problems += [f"{where}: {named['container_opt']}: {p}" for p in option_problems]
    cases: dict[str, tuple[str, ...]] = {}
    seen: set[str] = set()
    for entry in test.cases:
        with reading_once():
            cases[str(entry.key)] = tuple(_check_case(entry, cluster, test, catalogue, where))
        if entry.key.slug in seen:   # one result folder for both: not a case to skip alone
            problems.append(f"{where}: CASES[{str(entry.key)!r}]: listed twice: keep one entry")
        seen.add(entry.key.slug)
    return Checked(tuple(problems), cases)


# Less free space than this on the result root fails the plan: a run's files (logs, monitor
# samples, reports) are tens of MB for a one-hour 8-node case, docs/benchmarks.md.
MIN_RESULT_ROOT_FREE = 256 * 2**20


def result_root_problems(root: Path) -> list[str]:
    """Whether a run can write under ``root``: it exists as a directory or can be made (its
    nearest existing parent is a writable directory), is writable, and has room."""
    existing = root.absolute()
    while not existing.exists() and existing != existing.parent:
        existing = existing.parent
    if not existing.is_dir():
        return [f"{existing} is not a directory: point RESULT_ROOT at a directory"]
    if not os.access(existing, os.W_OK | os.X_OK):
        what = "is not writable" if existing == root.absolute() else \
            f"cannot be created: {existing} is not writable"
        return [f"{what} by this user: choose a directory you can write, or fix its permissions"]
    free = shutil.disk_usage(existing).free
    if free < MIN_RESULT_ROOT_FREE:
        return [f"has {free / 2**20:.0f} MiB free on its file system, less than the "
                f"{MIN_RESULT_ROOT_FREE / 2**20:.0f} MiB a run needs: free space or choose "
                "another directory"]
    return []


def _check_case(entry: CaseEntry, cluster: ClusterConfig, test: TestConfig,
                catalogue: Catalogue, config: str) -> list[str]:
    key, where = entry.key, f"{config}: CASES[{str(entry.key)!r}]"
    problems = []
    if key.family not in launcher_names():
        problems.append(f"{where}: framework {key.framework!r} has no launcher {key.family!r}: "
                        f"use one of {', '.join(launcher_names())}")
    model = catalogue.case_name(key.model)
    if (model, key.family) not in catalogue.cases:
        known = sorted(f"{m}:{f}" for m, f in catalogue.cases)
        why = catalogue.root / "benchmarks" / model / "README.md"   # a documented absence
        problems.append(f"{where}: no case code {catalogue.root}/benchmarks/{model}/{key.family}/"
                        f"{catalogue.entry}" + (f" ({why} says why)" if why.is_file() else "")
                        + did_you_mean(f"{model}:{key.family}", known)
                        + f": use one of {', '.join(known) or '(none)'}")
    vendor_key = (test.vendor, model, key.family)
    config_name = catalogue.vendor_config_name(key, test.vendor)
    # one vendor file serves every spec; an inference case without code has no config folder
    unknown_spec = catalogue.suite.vendor_config_follows_case and \
        (model, key.family) not in catalogue.cases
    if unknown_spec or test.vendor not in vendor_names():   # said once, not per case and folder
        return problems + _hosts_and_data(entry, cluster, key, where)
    foreign = foreign_chip_problem(key, test.vendor, where) \
        if catalogue.suite.vendor_config_per_topology else None
    if foreign and config_name not in catalogue.vendor_configs.get(vendor_key, ()):
        problems.append(foreign)     # said instead of the missing folder or config
    elif vendor_key not in catalogue.vendor_cases:
        folder = catalogue.suite.vendor_folder(catalogue.root, test.vendor, key, config_name)
        problems.append(f"{where}: vendor {test.vendor!r} has no case folder {folder}: add it "
                        "(see docs/adding-a-case.md)")
    elif config_name not in catalogue.vendor_configs[vendor_key]:
        have = sorted(catalogue.vendor_configs[vendor_key])
        problems.append(f"{where}: missing vendor config {catalogue.vendor_cases[vendor_key]}/config/"
                        f"{config_name}: add it, or use a topology that has one "
                        f"({', '.join(have) or 'none'})")
    problems += list(vendor_config(entry, test, catalogue).problems)
    problems += list(case_adaptation(catalogue, test.vendor, model, key.family, where).problems)
    problems += _inference_config_problems(entry, test, catalogue, where)
    problems += _override_problems(entry, test, catalogue, where)
    problems += sweep_problems(entry, test, catalogue, where)
    knobs = case_knobs(entry, test, catalogue)
    problems += run_mode_problems(knobs, where) + data_mode_problems(knobs, test.overrides, where)
    problems += megatron_core.problems(entry, test.vendor, test.overrides, knobs, where)
    problems += _needs(entry, test, catalogue, where)
    problems += toolkits.problems(entry, test.vendor, catalogue, where)
    problems += _image_needs(entry, test, catalogue, where)
    problems += _library_path(entry, test, catalogue, where)
    read = vendor_config(entry, test, catalogue)   # its degrees are compared once it was read
    problems += chip_layout_problems(key, knobs if read.checked and not read.problems else {},
                                     where)
    problems += _device_count(key, test.vendor, where)
    problems += [f"{where}: {p}" for p in
                 get_vendor(test.vendor).plan_problems(key.chip, vendor_family(key), key.nnodes,
                                                       key.nproc)]
    problems += [f"{where}: {p}" for p in torch_xla_problems(key, test, catalogue)]
    choice = image_choice(key.framework, test, catalogue)
    if choice.folder is None:
        problems.append(f"{where}: no image folder {catalogue.root}/{test.vendor}/docker_image/"
                        f"{key.framework}/Dockerfile ({choice.note}): add one for framework "
                        f"{key.framework!r}, or use one of the folders in the case key")
    else:
        problems += _base_image_problems(catalogue.images[(test.vendor, choice.folder)], test, where)
    return problems + _hosts_and_data(entry, cluster, key, where)


def _inference_config_problems(entry: CaseEntry, test: TestConfig, catalogue: Catalogue,
                               where: str) -> list[str]:
    """The model configs an inference case will read (configuration.yaml, FlagPerf's
    configurations.yaml and parameters.yaml, the vendor's file in either name), layered as the
    case layers them: a missing or malformed one, a key the case lacks, or an engine the
    vendor cannot run is a problem now, not a failure after the containers started."""
    key = entry.key
    config_dir = catalogue.vendor_cases.get((test.vendor, key.model, key.family))
    if not catalogue.suite.layered_model_configs or config_dir is None:
        return []
    merged, _, problems = read_inference_layers(config_dir, catalogue.vendor_config_name(key, test.vendor),
                                                inference_sets(test), vendor_engines=True)
    if "scenarios" in merged:   # an LLM case's MLPerf LoadGen scenarios and settings
        problems = [*problems, *scenario_problems(merged)]
    if problems:
        return [f"{where}: {p}" for p in problems]
    return _engine_in_image(entry, merged, test, catalogue, where)


def _engine_in_image(entry: CaseEntry, merged: Mapping[str, Any], test: TestConfig,
                     catalogue: Catalogue, where: str) -> list[str]:
    """The case's engine (and the served mode's lm-eval tasks) against what its image folder
    installs (chipperf.plan.engines); not in in-container mode, which builds no image."""
    choice = image_choice(entry.key.framework, test, catalogue)
    if test.in_container_launch or choice.folder is None:
        return []
    extra = adaptation(entry, test, catalogue).requirements
    image, files = catalogue.images[(test.vendor, choice.folder)], [extra] if extra else []
    return [*engine_image_problems(merged.get("engine"), image, files, where),
            *harness_image_problems(merged.get("serve_lmeval_tasks"), image, files, where)]


def _image_needs(entry: CaseEntry, test: TestConfig, catalogue: Catalogue,
                 where: str) -> list[str]:
    """A knob value that needs a package the case's image folder does not install (case.yaml's
    ``image_needs``, chipperf.plan.imageneeds); not in in-container mode, which builds no
    image."""
    key = entry.key
    case_dir = catalogue.cases.get((key.model, key.family))
    vendor_dir = catalogue.vendor_cases.get((test.vendor, key.model, key.family))
    choice = image_choice(key.framework, test, catalogue)
    if test.in_container_launch or choice.folder is None or case_dir is None or vendor_dir is None:
        return []
    needs = read_case_meta(case_dir).get("image_needs")
    if not needs:
        return []
    values = {**case_knobs(entry, test, catalogue), **test.overrides}
    extra = adaptation(entry, test, catalogue).requirements
    others = {folder: path for (vendor, folder), path in catalogue.images.items()
              if vendor == test.vendor and folder != choice.folder}
    return image_needs_problems(needs, values, catalogue.images[(test.vendor, choice.folder)],
                                [extra] if extra else [], NeedFix(vendor_dir, others), where)


def _library_path(entry: CaseEntry, test: TestConfig, catalogue: Catalogue,
                  where: str) -> list[str]:
    """A case of a Hugging Face library (case.yaml's ``library``) that the vendor runs
    through a package the case's image folder does not install (chipperf.plan.libraries);
    not in in-container mode, which builds no image."""
    key = entry.key
    case_dir = catalogue.cases.get((catalogue.case_name(key.model), key.family))
    choice = image_choice(key.framework, test, catalogue)
    if test.in_container_launch or choice.folder is None or case_dir is None:
        return []
    extra = adaptation(entry, test, catalogue).requirements
    image = catalogue.images[(test.vendor, choice.folder)]
    return library_problems(read_case_meta(case_dir).get(LIBRARY_KEY), get_vendor(test.vendor),
                            image, image.parent, [extra] if extra else [], where)


def _override_problems(entry: CaseEntry, test: TestConfig, catalogue: Catalogue,
                       where: str) -> list[str]:
    syntax = catalogue.suite.overrides
    if not test.overrides or syntax is Overrides.YAML:   # read with the model config layers
        return []
    case_dir = catalogue.cases.get((entry.key.model, entry.key.family))
    if syntax is Overrides.NONE or case_dir is None:
        return [f"{where}: OVERRIDES: only training and inference cases take parameters this "
                "way; remove it"]
    return check_overrides(case_dir / "config", test.overrides, where, (RUNTIME.parent,))


def _base_image_problems(context: Path, test: TestConfig, where: str) -> list[str]:
    """A Dockerfile whose FROM names no image without BASE_IMAGE (a vendor with no public
    image: its users point BASE_IMAGE at their registry) needs BASE_IMAGE in the test config."""
    args = {"BASE_IMAGE": test.image.base_image} if test.image.base_image else {}
    if "" not in base_images(context / "Dockerfile", args):
        return []
    return [f"{where}: {context}/Dockerfile names no base image by default (vendor "
            f"{test.vendor!r} has no public image): set BASE_IMAGE in the test config to the "
            "vendor's PyTorch image in your registry"]


def _needs(entry: CaseEntry, test: TestConfig, catalogue: Catalogue, where: str) -> list[str]:
    """The case's parallel layout, memory and checkpoint needs (case.yaml) against its vendor
    config, topology and chip spec sheet."""
    key = entry.key
    case_dir = catalogue.cases.get((key.model, key.family))
    config = vendor_config(entry, test, catalogue)
    if not catalogue.suite.configs_are_python or case_dir is None or not config.checked \
            or config.problems:
        return []
    needs = read_case_meta(case_dir)
    if not any(needs.get(k) for k in ("parallel", "memory", "counts", "checkpoint")):
        return []
    base = read_py_config(case_dir / "config" / BASE_FILE, (RUNTIME.parent,))
    values = {**base.public(), **config.values}
    chip = get_vendor(test.vendor).chip(key.chip) if test.vendor in vendor_names() else None
    return needs_problems(needs, values, key.nnodes, key.nproc, chip,
                          f"{where}: {key.vendor_config_name}")


def _device_count(key: CaseKey, vendor: str, where: str) -> list[str]:
    """nproc (ranks per node, one chip each) against the chips a node of that kind holds,
    where the vendor's spec sheet says (ChipSpec.devices_per_node; unknown: not checked)."""
    spec = get_vendor(vendor).chip(key.chip)
    most = spec.devices_per_node if spec else None
    if most is None or key.nproc <= most:
        return []
    return [f"{where}: nproc={key.nproc} but a {vendor} {key.chip} node "
            f"holds at most {most} chips (one rank per chip): use nproc <= {most}, and more "
            "nodes (nnodes) for more chips"]


def _hosts_and_data(entry: CaseEntry, cluster: ClusterConfig, key: CaseKey,
                    where: str) -> list[str]:
    problems = []
    unknown = [h for h in entry.hosts if h not in cluster.hosts]
    if unknown:
        problems.append(f"{where}: host(s) {', '.join(unknown)} are not in the cluster config: "
                        "add them to HOSTS")
    if cluster.hosts and key.nnodes > len(cluster.hosts):
        problems.append(f"{where}: nnodes={key.nnodes} but the cluster config lists "
                        f"{len(cluster.hosts)} host(s): add hosts to HOSTS or lower nnodes")
    if not entry.data_dir.startswith("/"):
        problems.append(f"{where}: data dir {entry.data_dir!r} is not an absolute path: give the "
                        "dataset's absolute path on the hosts")
    return problems
