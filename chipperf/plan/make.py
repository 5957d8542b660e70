"""The plan itself: configs + catalogue -> which process gets which node rank, port, container
name, env, command and result path (call ``check`` first)."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping

from chipperf.config import megatron_core
from chipperf.config.model import CaseEntry, ClusterConfig, TestConfig
from chipperf.config.runlength import deadline_warning
from chipperf.config.vendorconfig import (
    reading_once,
    render_translated,
    translated_name,
)
from chipperf.containers.containerplan import (
    SpecParts,
    case_options,
    monitor_options,
    node_containers,
)
from chipperf.launchers import LaunchContext, get_launcher
from chipperf.plan import toolkits
from chipperf.plan.case import (
    RUNTIME,
    adaptation,
    case_knobs,
    config_file,
    image_choice,
    image_name,
    override_args,
    vendor_config,
)
from chipperf.plan.model import (
    CasePlan,
    NodePlan,
    RoundPlan,
    RunPlan,
    Upload,
    case_dir_name,
    case_hosts,
    host_work_dir,
)
from chipperf.plan.sweep import point_args, round_points
from chipperf.suites.catalogue import Catalogue, read_case_meta
from chipperf_runtime.bench.peaks import plan_note
from chipperf_runtime.device import launch_env as device_launch_env
from chipperf_runtime.device import torch_xla_framework
from chipperf_runtime.training.driver.config import IMPLEMENTATION_ENV
from chipperf_runtime.vendors import get_vendor, vendor_names


def make_plan(cluster: ClusterConfig, test: TestConfig, catalogue: Catalogue,
              run_id: str, result_root: Path) -> RunPlan:
    """The whole run. Call ``check`` first: this assumes the configs are valid."""
    with reading_once():
        cases = tuple(_plan_case(_recorded(entry, test, catalogue), cluster, test, catalogue,
                                 run_id) for entry in test.cases)
        files = _translated_files(test, catalogue)
    used = {h for e in test.cases for h in case_hosts(e, cluster)}
    used_hosts = tuple(h for h in cluster.hosts if h in used)
    return RunPlan(run_id, result_root / run_id, used_hosts, _uploads(test, catalogue), cases,
                   files)


def _recorded(entry: CaseEntry, test: TestConfig, catalogue: Catalogue) -> CaseEntry:
    """``entry`` with the note of the implementation its config chose (Megatron-Core by a vendor
    config or OVERRIDES), so the plan, run.json and SUBMIT_INFO say it as for a FlagPerf key."""
    return megatron_core.recorded(entry, test.overrides, case_knobs(entry, test, catalogue))


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
        uploads += toolkits.uploads(entry, test.vendor, catalogue)
    return tuple(dict.fromkeys(uploads))


def _plan_case(entry: CaseEntry, cluster: ClusterConfig, test: TestConfig,
               catalogue: Catalogue, run_id: str) -> CasePlan:
    key = entry.key
    rounds = tuple(_plan_round(entry, n, cluster, test, run_id, catalogue, point)
                   for n, point in enumerate(round_points(entry, test), 1))
    choice = image_choice(key.framework, test, catalogue)
    folder = choice.folder or key.framework
    config = vendor_config(entry, test, catalogue)
    notes = ((f"{key}: {choice.note}",) if choice.note else ()) + tuple(
        f"{key}: {n}" for n in config.notes(Path(key.vendor_config_name)))
    peak_note = plan_note(catalogue.suite.name, catalogue.case_name(key.model), test.vendor, key.chip,
                          entry.case_args)
    notes += (f"{key}: {peak_note}",) if peak_note else ()
    deadline = deadline_warning(case_knobs(entry, test, catalogue), test.round_timeout_s)
    notes += (f"{key}: {deadline}",) if deadline else ()
    notes += _not_run_note(entry, catalogue) + toolkits.notes(entry, test.vendor, catalogue)
    notes += (entry.implementation,) if entry.implementation else ()
    return CasePlan(
        key=str(key), dir_name=case_dir_name(entry), vendor=test.vendor, framework=key.framework,
        family=key.family, chip=key.chip, nnodes=key.nnodes, nproc=key.nproc,
        data_dir=entry.data_dir,
        # Named by suite, vendor and folder (training's and inference's cpu images differ);
        # the tag is the hash of the build inputs alone, so suites whose folders hold the same
        # files (base/ and operation/ link training's cpu image) share one image: built and
        # shipped once, tagged under each name (containers.images.ensure_image).
        image_name=image_name(test.vendor, key.framework, test, catalogue),
        image_context=catalogue.images[(test.vendor, folder)], rounds=rounds,
        image_folder=folder, notes=notes, implementation=entry.implementation,
        adaptation=adaptation(entry, test, catalogue))


def _not_run_note(entry: CaseEntry, catalogue: Catalogue) -> tuple[str, ...]:
    """case.yaml's ``not_run``: what of the case's code has never run (said in every plan)."""
    key = entry.key
    case_dir = catalogue.cases.get((catalogue.case_name(key.model), key.family))
    text = read_case_meta(case_dir).get("not_run") if case_dir is not None else None
    return (f"{key}: never run: {text}",) if text else ()


def _plan_round(entry: CaseEntry, number: int, cluster: ClusterConfig, test: TestConfig,
                run_id: str, catalogue: Catalogue, point: Mapping[str, Any]) -> RoundPlan:
    hosts = case_hosts(entry, cluster)
    parts = (case_options(test.vendor, entry.key.nproc, test.container_opt),
             monitor_options(test.vendor, entry.key.nproc))
    nodes = tuple(_plan_node(entry, number, rank, hosts, cluster, test, run_id, catalogue, parts,
                             point) for rank in range(len(hosts)))
    return RoundPlan(number, hosts[0], cluster.master_port, test.round_timeout_s, nodes, point)


def _plan_node(entry: CaseEntry, number: int, rank: int, hosts: tuple[str, ...],
               cluster: ClusterConfig, test: TestConfig, run_id: str,
               catalogue: Catalogue, parts: tuple[SpecParts, SpecParts],
               point: Mapping[str, Any]) -> NodePlan:
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
                   "--extern_config_file", config_file(entry, test, catalogue),
                   "--output_dir", output_dir, *entry.case_args,
                   *toolkits.case_args(entry, test.vendor, catalogue, code),
                   *override_args(test, catalogue.suite), *point_args(point, catalogue.suite)),
        output_dir=output_dir)
    launcher = get_launcher(key.family)
    env = {**adaptation(entry, test, catalogue).container_env(),
           **_contract_env(ctx, test, run_id, str(key), number, code, key.framework), **launcher.env(ctx),
           **({IMPLEMENTATION_ENV: entry.implementation} if entry.implementation else {})}
    name = f"chipperf-{run_id}-{key.slug}-r{number}-n{rank}".replace(".", "_").lower()
    command = tuple(launcher.command(ctx))
    containers = node_containers(
        name=name, image=image_name(test.vendor, key.framework, test, catalogue), run_id=run_id,
        work_dir=work, data_dir=entry.data_dir, output_dir=output_dir, command=command, env=env,
        shm_size=test.shm_size, vendor=test.vendor, interval_s=test.monitor_interval_s,
        case=parts[0], monitor=parts[1])
    return NodePlan(host, rank, work, name, f"{name}-monitor", result_rel, output_dir,
                    env, command, containers)


def _contract_env(ctx: LaunchContext, test: TestConfig, run_id: str, case: str, number: int,
                  code: str, framework: str = "") -> dict[str, str]:
    env = {
        "MASTER_ADDR": ctx.master_addr, "MASTER_PORT": str(ctx.master_port),
        "NNODES": str(ctx.nnodes), "NODE_RANK": str(ctx.node_rank),
        "NPROC_PER_NODE": str(ctx.nproc_per_node), "WORLD_SIZE": str(ctx.world_size),
        "CHIPPERF_RUN_ID": run_id, "CHIPPERF_CASE": case, "CHIPPERF_ROUND": str(number),
        **device_env(test.vendor, framework),
        "PYTHONPATH": code, "PYTHONUNBUFFERED": "1",
    }
    variable = test.visible_devices_env or _vendor_visible_env(test.vendor)
    if variable:
        env[variable] = get_vendor(test.vendor).visible_devices(ctx.nproc_per_node)
    return env


def device_env(vendor: str, framework: str = "") -> dict[str, str]:
    """CHIPPERF_VENDOR and the device the vendor names (chipperf_runtime.device reads them in
    the case); a pytorch_xla_<version> framework runs on torch_xla's device, kind xla, on the
    vendor's PJRT device (PJRT_DEVICE; the plan refuses a vendor without one)."""
    if vendor not in vendor_names():
        return {"CHIPPERF_VENDOR": vendor}
    v = get_vendor(vendor)
    if torch_xla_framework(framework) and v.pjrt_device is not None:
        return {**device_launch_env(vendor, "xla"), "PJRT_DEVICE": v.pjrt_device}
    return device_launch_env(vendor, v.device, v.device_plugin, v.dist_backend)


def _vendor_visible_env(vendor: str) -> str | None:
    return get_vendor(vendor).visible_devices_env if vendor in vendor_names() else None
