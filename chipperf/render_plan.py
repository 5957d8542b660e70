"""Human-readable rendering of a RunPlan (what `chipperf plan` prints)."""

from __future__ import annotations

import shlex

from chipperf.config.model import ClusterConfig, TestConfig
from chipperf.plan import RunPlan
from chipperf.vendors import hardware_status


def render_plan(plan: RunPlan, cluster: ClusterConfig, test: TestConfig) -> str:
    lines = [
        f"run id      {plan.run_id} (the real run gets its own)",
        f"results     {plan.result_dir}/",
        f"hosts       {', '.join(plan.hosts)} (ssh port {cluster.ssh_port}, "
        f"host keys: {cluster.host_key_policy})",
        f"vendor      {test.vendor}",
        f"hardware    {hardware_status(test.vendor)[1]}",
        "uploads     " + ", ".join(u.target for u in plan.uploads),
    ]
    if test.in_container_launch:
        lines.append("launch      IN_CONTAINER_LAUNCH: the hosts are existing containers; no image "
                     "is built and no container started: the commands below run as processes "
                     "in them")
    for case in plan.cases:
        lines += ["", f"case {case.key}",
                  f"  image     {case.image_name}:<hash of {case.image_context}>"
                  if not test.in_container_launch else "  image     none (the container's own)",
                  f"  hardware  {hardware_status(case.vendor, case.chip)[1]}",
                  *(f"  warning   {note}" for note in case.notes),
                  f"  data      {case.data_dir}",
                  f"  rounds    {len(case.rounds)}, deadline {case.rounds[0].timeout_s:.0f} s each"]
        first = case.rounds[0]
        lines.append(f"  master    {first.master_addr}:{first.master_port}")
        for node in first.nodes:
            lines += [
                f"  node {node.node_rank} on {node.host}",
                f"    container {node.container} (+ {node.monitor})",
                f"    work dir  {node.work_dir}",
                f"    results   {plan.result_dir}/{node.result_rel}/",
                f"    command   {shlex.join(node.command)}",
                "    env       " + " ".join(f"{k}={v}" for k, v in sorted(node.env.items())),
            ]
    return "\n".join(lines)
