"""Human-readable rendering of a RunPlan (what `chipperf plan` prints)."""

from __future__ import annotations

import json
import shlex
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Optional

from chipperf.config.model import ClusterConfig, TestConfig
from chipperf.containers.images import LAYER_SUFFIX, never_built
from chipperf.containers.incontainer import POWERCAP_HINT
from chipperf.containers.spec import ContainerSpec, docker_run_line, option_words
from chipperf.plan import CasePlan, RunPlan, case_knobs
from chipperf.plan.sweep import sweep_lines
from chipperf.suites.catalogue import Catalogue
from chipperf_runtime.vendors import hardware_status

INPUT_MODES = {
    "real": "real images decoded on the host ({workers} DataLoader workers a rank)",
    "predecoded": "pre-decoded (uint8 arrays decoded ahead of the run, cropped on the device)",
    "synthetic": "synthetic (one device-resident random batch: compute only)",
}


def render_plan(plan: RunPlan, cluster: ClusterConfig, test: TestConfig,
                catalogue: Optional[Catalogue] = None) -> str:
    lines = [
        f"run id      {plan.run_id} (the real run gets its own)",
        f"results     {plan.result_dir}/",
        f"hosts       {', '.join(plan.hosts)} (ssh port {cluster.ssh_port}, "
        f"host keys: {cluster.host_key_policy})",
        f"vendor      {test.vendor}",
        f"hardware    {hardware_status(test.vendor)[1]}",
        "uploads     " + ", ".join(u.target for u in plan.uploads),
        *_executor(cluster, test),
    ]
    if test.in_container_launch and test.in_container_name:
        lines.append(f"launch      IN_CONTAINER_LAUNCH: the running container {test.in_container_name!r} "
                     "on each host (checked when the run starts: running, and on the host's "
                     "network for a multi-node case); no image is built and no container "
                     "started: the commands below run as processes in it (docker exec)")
    elif test.in_container_launch:
        lines.append("launch      IN_CONTAINER_LAUNCH: the hosts are existing containers; no image "
                     "is built and no container started: the commands below run as processes "
                     "in them")
    if test.in_container_launch:
        lines.append("power       read by the monitor inside the container (chipperf mounts "
                     "nothing into it): RAPL from the container's CHIPPERF_POWERCAP_ROOT or "
                     "/sys/class/powercap, which Docker hides unless the container was started "
                     f"with `{POWERCAP_HINT}`; the run checks it on each host and says so "
                     "(run.json hosts.<host>.node_power)")
    for skipped in test.skipped:
        lines += ["", f"skipped {skipped.key} (--keep-going)",
                  *(f"  problem   {problem}" for problem in skipped.problems)]
    for case in plan.cases:
        lines += ["", f"case {case.key}",
                  f"  image     {case.image_name}:<hash of {case.image_context}>"
                  if not test.in_container_launch else "  image     none (the container's own)",
                  *_adaptation(case),
                  f"  hardware  {hardware_status(case.vendor, case.chip)[1]}",
                  *_never_built(case, test),
                  *(f"  warning   {note}" for note in case.notes),
                  f"  data      {case.data_dir}",
                  *_modes(case.key, case.data_dir, test, catalogue),
                  f"  rounds    {len(case.rounds)}, deadline {case.rounds[0].timeout_s:.0f} s each",
                  *_sweep(case.key, test)]
        first = case.rounds[0]
        lines.append(f"  master    {first.master_addr}:{first.master_port}")
        for node in first.nodes:
            lines += [f"  node {node.node_rank} on {node.host}",
                      f"    work dir  {node.work_dir}",
                      f"    results   {plan.result_dir}/{node.result_rel}/",
                      *_node_specs(node, test)]
    return "\n".join(lines)


def _sweep(key: str, test: TestConfig) -> list[str]:
    entry = next((e for e in test.cases if str(e.key) == key), None)
    return sweep_lines(entry, test) if entry is not None else []


def _adaptation(case: CasePlan) -> list[str]:
    """The vendor folder's environment, requirements layer and trainer adapter, where it has them."""
    a = case.adaptation
    return ([f"  vendor env {' '.join(f'{k}={shlex.quote(v)}' for k, v in a.env.items())} "
             f"(from {', '.join(str(f) for f in a.env_files)})"] if a.env else []) + \
        ([f"  requirements {a.requirements}: installed in a layer, "
          f"{case.image_name}{LAYER_SUFFIX}:<hash of it on the image>"] if a.requirements else []) + \
        ([f"  trainer adapter {a.adapter}: hooks {', '.join(a.hooks) or '(none)'}"]
         if a.adapter else []) + \
        [f"  not carried from FlagPerf's adapter: {gap}" for gap in a.not_carried]


def _modes(key: str, data_dir: str, test: TestConfig, catalogue: Optional[Catalogue]) -> list[str]:
    """A training case's run mode and input mode, from its resolved knobs (``_base.py`` under
    the vendor config, OVERRIDES on top); nothing for a case without knobs."""
    entry = next((e for e in test.cases if str(e.key) == key), None)
    if catalogue is None or entry is None:
        return []
    knobs = {**case_knobs(entry, test, catalogue), **test.overrides}
    if not knobs:
        return []
    return [f"  run mode  {run_mode_text(knobs)}", f"  input     {input_mode_text(knobs, data_dir)}"]


def run_mode_text(knobs: Mapping[str, Any]) -> str:
    if knobs.get("run_mode", "convergence") == "performance":
        return (f"performance: {knobs.get('perf_warmup_steps', 0)} warm-up + "
                f"{knobs.get('timed_steps', 0)} timed steps (throughput and MFU from the timed steps)")
    targets = [f"{k} = {v}" for k, v in sorted(knobs.items())
               if k.startswith("target") and v is not None]
    limits = [f"{k} = {knobs[k]}" for k in ("max_steps", "max_epochs") if knobs.get(k) is not None]
    return (f"convergence: train toward {', '.join(targets) or 'no target the config names'}, "
            f"at most {', '.join(limits) or 'no step or epoch limit'}")


def input_mode_text(knobs: Mapping[str, Any], data_dir: str) -> str:
    """The case's data mode, and "smoke data" where the data dir is on this machine and its
    dataset.json says so (the hosts' copy is not seen at plan time)."""
    mode = str(knobs.get("data_mode", "real"))
    text = INPUT_MODES.get(mode, f"data_mode {mode!r}").format(workers=knobs.get("num_workers", "?")) \
        if "data_mode" in knobs else "the case's data set in its data dir"
    card = Path(data_dir) / "dataset.json"
    if mode != "synthetic" and card.is_file():
        try:
            said = json.loads(card.read_text())
        except (OSError, ValueError):
            said = {}
        if isinstance(said, dict) and said.get("smoke_test"):
            text += f"; smoke data ({card}: {said.get('name', 'a smoke set')})"
    return text


def _executor(cluster: ClusterConfig, test: TestConfig) -> list[str]:
    """EXECUTOR = "slurm": the job that holds the nodes, and how the placeholders become hosts."""
    if cluster.slurm is None:
        return []
    from chipperf.slurm.commands import sbatch_argv
    from chipperf.slurm.executor import slurm_request

    return [f"slurm       {shlex.join(sbatch_argv(slurm_request(cluster, test)))}",
            f"            then: wait for RUNNING (QUEUE_TIMEOUT {cluster.slurm.queue_timeout_s:g} s), "
            f"{', '.join(cluster.slurm.placeholders)} = the job's nodes in Slurm's order (their "
            "NodeAddr), the run below over SSH on them, `scancel JOBID` after the teardown"]


def _node_specs(node: Any, test: TestConfig) -> list[str]:
    """The node's case and monitor: containers chipperf starts, or (IN_CONTAINER_LAUNCH)
    processes in the existing container."""
    if not test.in_container_launch:
        return [*_spec("case container", node.case_spec),
                *_spec("monitor sidecar", node.monitor_spec)]
    return [*_process("case process", node.case_spec, node.host, test.in_container_name),
            *_process("monitor process", node.monitor_spec, node.host, test.in_container_name)]


def _process(what: str, spec: ContainerSpec, host: str, container: Optional[str]) -> list[str]:
    """IN_CONTAINER_LAUNCH: a spec's command and environment as a process in the existing
    container (image, mounts, devices and options are the container's own), and the command
    that starts it by hand on the host (``docker exec`` into IN_CONTAINER_NAME) or in the
    container the host is."""
    argv = ["env", *(f"{k}={v}" for k, v in sorted(spec.env.items())), *spec.command]
    by_hand = ["docker", "exec", "-d", container, *argv] if container else argv
    return [
        f"    {what} {spec.name}" + (f" in container {container} on {host}" if container else ""),
        f"      command   {' '.join(spec.command)}",
        "      env       " + " ".join(f"{k}={v}" for k, v in sorted(spec.env.items())),
        f"      by hand   {shlex.join(by_hand)}",
    ]


def _spec(what: str, spec: ContainerSpec) -> list[str]:
    """A container spec as the run starts it (round 1; later rounds differ in the r<N> of
    names and CHIPPERF_ROUND), and the `docker run` line that starts it by hand (TAG: the
    image's tag, which the run prints when it has built the image)."""
    mounts = [f"{m.source} -> {m.target} ({m.mode}{', where the host has it' if m.if_present else ''})"
              for m in spec.mounts]
    devices = [d.text() + (" (where the host has it)" if d.if_present else "") for d in spec.devices]
    return [
        f"    {what} {spec.name}",
        f"      image     {spec.image}:<tag: hash of the image's build inputs>",
        f"      command   {' '.join(spec.command)}",
        "      env       " + " ".join(f"{k}={v}" for k, v in sorted(spec.env.items())),
        *(f"      mount     {m}" for m in mounts),
        *(f"      device    {d}" for d in devices),
        f"      shm       {spec.shm_size}" + ("; pid namespace: host" if spec.pid_host else ""),
        "      options   " + (" ".join(option_words(spec.options or {})) or "(none)"),
        f"      by hand   {docker_run_line(spec.tagged(f'{spec.image}:TAG'))}",
    ]


def _never_built(case: CasePlan, test: TestConfig) -> list[str]:
    """What has never run, where the case's image was never built by chipperf: the image, so
    this case in it on this vendor."""
    why = None if test.in_container_launch else never_built(Path(case.image_context) / "Dockerfile")
    if why is None:
        return []
    return [f"  never ran its image {case.image_name} was never built by chipperf ({why}), so "
            f"this case has never run in it on {case.vendor}: the image build and every step "
            "below are untried"]
