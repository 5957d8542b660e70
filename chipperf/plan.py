"""Pure planning: configs + case catalogue -> what runs where.

Which process gets which node rank, port, container name, env, command and
result path is decided here, from data alone: no host, clock or docker is touched
(the run id is passed in). ``check`` lists every problem at once.
"""

from __future__ import annotations

import json
import os
import re
import shutil
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Mapping

import chipperf_runtime
from chipperf.config.caseneeds import needs_problems
from chipperf.config.model import CaseEntry, CaseKey, ClusterConfig, SkippedCase, TestConfig
from chipperf.config.pyconfig import read_py_config
from chipperf.config.runlength import deadline_warning, run_mode_problems
from chipperf.config.vendorconfig import (
    BASE_FILE,
    VendorConfig,
    check_overrides,
    check_vendor_config,
    render_translated,
    translated_name,
)
from chipperf.containers.containerplan import (
    NodeContainers,
    SpecParts,
    case_options,
    monitor_options,
    node_containers,
)
from chipperf.containers.images import base_images
from chipperf.containers.options import parse_cli_options
from chipperf.containers.spec import ContainerSpec
from chipperf.frameworks import ImageChoice, choose_folder
from chipperf.launchers import LaunchContext, get_launcher, launcher_names
from chipperf.results.compute.measured import read_measured_peaks
from chipperf.suites.catalogue import FLAGPERF_VENDOR_SUFFIX, Catalogue, read_case_meta
from chipperf_runtime.bench.peaks import plan_note
from chipperf_runtime.device import launch_env as device_launch_env
from chipperf_runtime.inference.config import read_layers as read_inference_layers
from chipperf_runtime.training.driver.config import IMPLEMENTATION_ENV
from chipperf_runtime.vendors import get_vendor, vendor_names

# the case runtime's folder: uploaded into every container beside the case code
RUNTIME = Path(chipperf_runtime.__file__).resolve().parent


@dataclass(frozen=True)
class Upload:
    source: Path   # on the master
    target: str    # relative to the host's work dir


@dataclass(frozen=True)
class NodePlan:
    host: str
    node_rank: int
    work_dir: str          # on the host (and the same path inside the containers)
    container: str
    monitor: str
    result_rel: str        # <case dir>/round<N>/<host>_noderank<K>, relative to the run dir
    output_dir: str        # where the node's files are written on the host
    env: Mapping[str, str]
    command: tuple[str, ...]
    containers: NodeContainers    # what runs: exactly these two are started

    @property
    def case_spec(self) -> ContainerSpec:
        return self.containers.case

    @property
    def monitor_spec(self) -> ContainerSpec:
        return self.containers.monitor


@dataclass(frozen=True)
class RoundPlan:
    number: int
    master_addr: str
    master_port: int
    timeout_s: float
    nodes: tuple[NodePlan, ...]


@dataclass(frozen=True)
class CasePlan:
    key: str
    dir_name: str
    vendor: str
    framework: str
    family: str
    chip: str
    nnodes: int
    nproc: int
    data_dir: str
    image_name: str        # repository part; the tag is the build-input hash (containers.images)
    image_context: Path
    rounds: tuple[RoundPlan, ...]
    image_folder: str = ""           # <vendor>/docker_image/<image_folder>
    notes: tuple[str, ...] = ()      # warnings decided while planning (substitutions, aliases)
    implementation: str = ""         # CaseEntry.implementation: FlagPerf's other implementation


@dataclass(frozen=True)
class RunPlan:
    run_id: str
    result_dir: Path
    hosts: tuple[str, ...]
    uploads: tuple[Upload, ...]
    cases: tuple[CasePlan, ...]
    files: tuple[tuple[str, str], ...] = ()   # (target, text) written beside the uploads


    def work_dir(self, host: str, work_root: str) -> str:
        return host_work_dir(work_root, self.run_id, host)

    def sensor_paths(self) -> tuple[str, ...]:
        """Host paths the sidecars mount where present: preflight looks for them."""
        return tuple(dict.fromkeys(p for c in self.cases for r in c.rounds for n in r.nodes
                                   for p in n.monitor_spec.sensor_paths()))


def host_label(host: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]", "_", host)


def host_work_dir(work_root: str, run_id: str, host: str) -> str:
    """Per run and per host, so two nodes sharing a filesystem never collide."""
    return f"{work_root.rstrip('/')}/{run_id}/{host_label(host)}"


def case_dir_name(entry: CaseEntry) -> str:
    return entry.key.slug


# ---------------------------------------------------------------- checking


def check(cluster: ClusterConfig, test: TestConfig, catalogue: Catalogue,
          where: str = "test config", names: Mapping[str, str] | None = None) -> list[str]:
    """Every reason the configs cannot run, as 'where: what: how to fix'. ``names``: a
    setting's key -> the name the config file wrote it as (chipperf.config.load.RawConfig),
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
        problems.append(f"{where}: {named['vendor']} {test.vendor!r} is unknown: use one of "
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
                        + f": use one of {', '.join(known) or '(none)'}")
    vendor_key = (test.vendor, model, key.family)
    config_name = catalogue.vendor_config_name(key, test.vendor)
    # one vendor file serves every spec; an inference case without code has no config folder
    unknown_spec = catalogue.suite in ("base", "operation", "inference") and \
        (model, key.family) not in catalogue.cases
    if unknown_spec or test.vendor not in vendor_names():   # said once, not per case and folder
        return problems + _hosts_and_data(entry, cluster, key, where)
    if vendor_key not in catalogue.vendor_cases:
        folder = (f"{catalogue.root}/configs/{key.model}/vendor_config/{config_name} (or "
                  f"FlagPerf's {test.vendor}{FLAGPERF_VENDOR_SUFFIX})"
                  if catalogue.suite == "inference" else
                  f"{catalogue.root}/configs/vendor_config/{config_name}"
                  if catalogue.suite != "training" else
                  f"{catalogue.root}/{test.vendor}/{key.model}-{key.family}")
        problems.append(f"{where}: vendor {test.vendor!r} has no case folder {folder}: add it "
                        "(see docs/adding-a-case.md)")
    elif config_name not in catalogue.vendor_configs[vendor_key]:
        have = sorted(catalogue.vendor_configs[vendor_key])
        problems.append(f"{where}: missing vendor config {catalogue.vendor_cases[vendor_key]}/config/"
                        f"{config_name}: add it, or use a topology that has one "
                        f"({', '.join(have) or 'none'})")
    problems += list(vendor_config(entry, test, catalogue).problems)
    problems += _inference_config_problems(entry, test, catalogue, where)
    problems += _override_problems(entry, test, catalogue, where)
    problems += run_mode_problems(case_knobs(entry, test, catalogue), where)
    problems += _needs(entry, test, catalogue, where)
    problems += _device_count(key, test.vendor, where)
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
    if catalogue.suite != "inference" or config_dir is None:
        return []
    _, _, problems = read_inference_layers(config_dir, catalogue.vendor_config_name(key, test.vendor),
                                           inference_sets(test), vendor_engines=True)
    return [f"{where}: {p}" for p in problems]


def _override_problems(entry: CaseEntry, test: TestConfig, catalogue: Catalogue,
                       where: str) -> list[str]:
    if not test.overrides or catalogue.suite == "inference":   # inference: read with its layers
        return []
    case_dir = catalogue.cases.get((entry.key.model, entry.key.family))
    if catalogue.suite != "training" or case_dir is None:
        return [f"{where}: OVERRIDES: only training and inference cases take parameters this "
                "way; remove it"]
    return check_overrides(case_dir / "config", test.overrides, where, (RUNTIME.parent,))


def override_args(test: TestConfig, suite: str) -> tuple[str, ...]:
    """OVERRIDES as the case's --set NAME=VALUE arguments: a training case reads the values as
    Python literals, an inference case as YAML (JSON's spelling of a value is both)."""
    sets = inference_sets(test) if suite == "inference" else \
        tuple(f"{name}={value!r}" for name, value in test.overrides.items())
    return tuple(a for item in sets for a in ("--set", item))


def inference_sets(test: TestConfig) -> tuple[str, ...]:
    return tuple(f"{name}={json.dumps(value)}" for name, value in test.overrides.items())


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
    """The case's parallel layout and memory needs (case.yaml) against its vendor config,
    topology and chip spec sheet."""
    key = entry.key
    case_dir = catalogue.cases.get((key.model, key.family))
    config = vendor_config(entry, test, catalogue)
    if catalogue.suite != "training" or case_dir is None or not config.checked or config.problems:
        return []
    needs = read_case_meta(case_dir)
    if not (needs.get("parallel") or needs.get("memory") or needs.get("counts")):
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


# ---------------------------------------------------------------- planning


def make_plan(cluster: ClusterConfig, test: TestConfig, catalogue: Catalogue,
              run_id: str, result_root: Path) -> RunPlan:
    """The whole run. Call ``check`` first: this assumes the configs are valid."""
    cases = tuple(_plan_case(entry, cluster, test, catalogue, run_id) for entry in test.cases)
    used = {h for e in test.cases for h in case_hosts(e, cluster)}
    used_hosts = tuple(h for h in cluster.hosts if h in used)
    return RunPlan(run_id, result_root / run_id, used_hosts, _uploads(test, catalogue), cases,
                   _translated_files(test, catalogue))


def vendor_config(entry: CaseEntry, test: TestConfig, catalogue: Catalogue) -> VendorConfig:
    """The case's vendor config checked against its knobs (training cases that declare them)."""
    key = entry.key
    case_dir = catalogue.cases.get((key.model, key.family))
    vendor_dir = catalogue.vendor_cases.get((test.vendor, key.model, key.family))
    if catalogue.suite != "training" or case_dir is None or vendor_dir is None:
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
    if catalogue.suite != "training" or case_dir is None:
        return {}
    base = read_py_config(case_dir / "config" / BASE_FILE, (RUNTIME.parent,))
    return {**base.public(), **vendor_config(entry, test, catalogue).values}


def _translated_files(test: TestConfig, catalogue: Catalogue) -> tuple[tuple[str, str], ...]:
    files = {}
    for entry in test.cases:
        config = vendor_config(entry, test, catalogue)
        if config.translated:
            key = entry.key
            source = catalogue.vendor_cases[(test.vendor, key.model, key.family)] / "config" / \
                key.vendor_config_name
            target = f"code/vendor/{key.model}-{key.family}/config/{translated_name(source.name)}"
            files[target] = render_translated(config.values, source, config)
    return tuple(files.items())


def _uploads(test: TestConfig, catalogue: Catalogue) -> tuple[Upload, ...]:
    uploads = [Upload(RUNTIME, "code/chipperf_runtime")]      # the runtime: never the engine
    for entry in test.cases:
        model, family = catalogue.case_name(entry.key.model), entry.key.family
        uploads.append(Upload(catalogue.cases[(model, family)], f"code/benchmarks/{model}/{family}"))
        uploads.append(Upload(catalogue.vendor_cases[(test.vendor, model, family)],
                              f"code/vendor/{model}-{family}"))
    return tuple(dict.fromkeys(uploads))


def image_choice(framework: str, test: TestConfig, catalogue: Catalogue) -> ImageChoice:
    """The vendor's image folder for a case key's framework (FRAMEWORK_MATCH decides)."""
    folders = [f for (vendor, f) in catalogue.images if vendor == test.vendor]
    return choose_folder(framework, folders, test.framework_match)


def _plan_case(entry: CaseEntry, cluster: ClusterConfig, test: TestConfig,
               catalogue: Catalogue, run_id: str) -> CasePlan:
    key = entry.key
    rounds = tuple(_plan_round(entry, n, cluster, test, run_id, catalogue)
                   for n in range(1, key.repeat + 1))
    choice = image_choice(key.framework, test, catalogue)
    folder = choice.folder or key.framework
    config = vendor_config(entry, test, catalogue)
    notes = ((f"{key}: {choice.note}",) if choice.note else ()) + tuple(
        f"{key}: {n}" for n in config.notes(Path(key.vendor_config_name)))
    peak_note = plan_note(catalogue.suite, catalogue.case_name(key.model), test.vendor, key.chip,
                          entry.case_args)
    notes += (f"{key}: {peak_note}",) if peak_note else ()
    deadline = deadline_warning(case_knobs(entry, test, catalogue), test.round_timeout_s)
    notes += (f"{key}: {deadline}",) if deadline else ()
    notes += (entry.implementation,) if entry.implementation else ()
    return CasePlan(
        key=str(key), dir_name=case_dir_name(entry), vendor=test.vendor, framework=key.framework,
        family=key.family, chip=key.chip, nnodes=key.nnodes, nproc=key.nproc,
        data_dir=entry.data_dir,
        # Named by suite, vendor and folder (training's and inference's cpu images differ);
        # the tag is the hash of the build inputs alone, so suites whose folders hold the same
        # files (base/ and operation/ link training's cpu image) share one image: built and
        # shipped once, tagged under each name (containers.images.ensure_image).
        image_name=_image_name(test.vendor, key.framework, test, catalogue),
        image_context=catalogue.images[(test.vendor, folder)], rounds=rounds,
        image_folder=folder, notes=notes, implementation=entry.implementation)


def _plan_round(entry: CaseEntry, number: int, cluster: ClusterConfig, test: TestConfig,
                run_id: str, catalogue: Catalogue) -> RoundPlan:
    hosts = case_hosts(entry, cluster)
    parts = (case_options(test.vendor, entry.key.nproc, test.container_opt),
             monitor_options(test.vendor, entry.key.nproc))
    nodes = tuple(_plan_node(entry, number, rank, hosts, cluster, test, run_id, catalogue, parts)
                  for rank in range(len(hosts)))
    return RoundPlan(number, hosts[0], cluster.master_port, test.round_timeout_s, nodes)


def _image_name(vendor: str, framework: str, test: TestConfig, catalogue: Catalogue) -> str:
    folder = image_choice(framework, test, catalogue).folder or framework
    return f"chipperf/{catalogue.suite}-{vendor}-{folder}".lower()


def case_hosts(entry: CaseEntry, cluster: ClusterConfig) -> tuple[str, ...]:
    """The case's nodes: its pinned hosts, else the first nnodes hosts (node rank = index)."""
    return (entry.hosts or cluster.hosts)[: entry.key.nnodes]


def _plan_node(entry: CaseEntry, number: int, rank: int, hosts: tuple[str, ...],
               cluster: ClusterConfig, test: TestConfig, run_id: str,
               catalogue: Catalogue, parts: tuple[SpecParts, SpecParts]) -> NodePlan:
    key, host = entry.key, hosts[rank]
    model = catalogue.case_name(key.model)
    work = host_work_dir(cluster.work_root, run_id, host)
    result_rel = f"{case_dir_name(entry)}/round{number}/{host}_noderank{rank}"
    output_dir = f"{work}/results/{result_rel}"
    code = f"{work}/code"
    vendor_dir = f"{code}/vendor/{model}-{key.family}/{catalogue.config_subdir}".rstrip("/")
    ctx = LaunchContext(
        nnodes=key.nnodes, node_rank=rank, nproc_per_node=key.nproc, master_addr=hosts[0],
        master_port=cluster.master_port, node_addr=host, hosts=hosts,
        entry=f"{code}/benchmarks/{model}/{key.family}/{catalogue.entry}",
        case_args=("--data_dir", entry.data_dir, "--extern_config_dir", vendor_dir,
                   "--extern_config_file", _config_file(entry, test, catalogue),
                   "--output_dir", output_dir, *entry.case_args,
                   *override_args(test, catalogue.suite)),
        output_dir=output_dir)
    launcher = get_launcher(key.family)
    env = {**_contract_env(ctx, test, run_id, str(key), number, code), **launcher.env(ctx),
           **({IMPLEMENTATION_ENV: entry.implementation} if entry.implementation else {})}
    name = f"chipperf-{run_id}-{key.slug}-r{number}-n{rank}".replace(".", "_").lower()
    command = tuple(launcher.command(ctx))
    containers = node_containers(
        name=name, image=_image_name(test.vendor, key.framework, test, catalogue), run_id=run_id,
        work_dir=work, data_dir=entry.data_dir, output_dir=output_dir, command=command, env=env,
        shm_size=test.shm_size, vendor=test.vendor, interval_s=test.monitor_interval_s,
        case=parts[0], monitor=parts[1])
    return NodePlan(host, rank, work, name, f"{name}-monitor", result_rel, output_dir,
                    env, command, containers)


def _config_file(entry: CaseEntry, test: TestConfig, catalogue: Catalogue) -> str:
    name = catalogue.vendor_config_name(entry.key, test.vendor)
    return translated_name(name) if vendor_config(entry, test, catalogue).translated else name


def _contract_env(ctx: LaunchContext, test: TestConfig, run_id: str, case: str, number: int,
                  code: str) -> dict[str, str]:
    env = {
        "MASTER_ADDR": ctx.master_addr, "MASTER_PORT": str(ctx.master_port),
        "NNODES": str(ctx.nnodes), "NODE_RANK": str(ctx.node_rank),
        "NPROC_PER_NODE": str(ctx.nproc_per_node), "WORLD_SIZE": str(ctx.world_size),
        "CHIPPERF_RUN_ID": run_id, "CHIPPERF_CASE": case, "CHIPPERF_ROUND": str(number),
        **device_env(test.vendor),
        "PYTHONPATH": code, "PYTHONUNBUFFERED": "1",
    }
    variable = test.visible_devices_env or _vendor_visible_env(test.vendor)
    if variable:
        env[variable] = get_vendor(test.vendor).visible_devices(ctx.nproc_per_node)
    return env


def device_env(vendor: str) -> dict[str, str]:
    """CHIPPERF_VENDOR and the device the vendor names (chipperf_runtime.device reads them in the case)."""
    if vendor not in vendor_names():
        return {"CHIPPERF_VENDOR": vendor}
    v = get_vendor(vendor)
    return device_launch_env(vendor, v.device, v.device_plugin, v.dist_backend)


def _vendor_visible_env(vendor: str) -> str | None:
    return get_vendor(vendor).visible_devices_env if vendor in vendor_names() else None
