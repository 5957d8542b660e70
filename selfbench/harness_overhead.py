"""Harness overhead per round on 1 and on 3 simulated hosts.

    python3 selfbench/harness_overhead.py [--rounds 3] [--host-cpus X] [--keep DIR]

Needs root and the simulated cluster (`tests/simcluster/simcluster.py up --hosts 3`,
which this script runs). For each topology it runs resnet50 (a tiny real
training: a few optimizer steps at 32x32) with `--rounds` rounds through the real
CLI, after one warm-up run that builds and ships the image (excluded). Per round:

    overhead = round wall time (run.json, start of containers .. statuses written)
               - the case's own e2e time (FINISHED e2e_time_s on rank 0)

and, separately, the harness's own share of it:

    harness = round wall time - the case containers' lifetime (docker State.StartedAt ..
              FinishedAt, the longest over the nodes)

(the rest is the framework launcher and interpreter starting and stopping inside the
container). It prints medians for 1 and 3 hosts, their ratios, the fixed per-run cost
(connect, checks, upload, teardown, reports) outside rounds, and where the CPU went: the
master's own CPU time (the chipperf process), each simulated host's (its sshd, dockerd,
containerd and containers, from its cgroup) and the whole machine's, per round.

The simulated hosts share this machine's cores, so with 3 hosts every per-host step
(container start, the launcher importing torch, teardown) queues for the same CPUs, which
a real cluster's hosts do not. The script therefore measures twice: once with the hosts
sharing the machine freely, and once with every host capped at the same `--host-cpus`
(default: 90% of the cores split three ways), so that 1 and 3 hosts each get the same
CPU per host, as on a cluster of equal machines (0 skips that pass).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from chipperf_runtime.perflog import parse_lines  # noqa: E402

SIM = REPO / "tests/simcluster/simcluster.py"
TINY = "image_size = 32\nglobal_batch_size = {batch}\nmax_epochs = 1\nmax_steps = 2\n" \
       "target_accuracy = 0.0\nnum_workers = 0\nwarmup_epochs = 0\neval_every_epochs = 1\n"


def setup(work: Path, digits: Path) -> tuple[Path, list[str], dict]:
    training = work / "training"
    shutil.copytree(REPO / "training", training, ignore=shutil.ignore_patterns("__pycache__"))
    config = training / "cpu/resnet50-pytorch/config"
    (config / "config_xeonx1x1.py").write_text(TINY.format(batch=16))
    (config / "config_xeonx3x1.py").write_text(TINY.format(batch=48))
    subprocess.run([sys.executable, str(SIM), "up", "--hosts", "3"], check=True)
    state = json.loads(Path("/run/chipperf-sim/cluster.json").read_text())
    if not (digits / "train").is_dir():
        subprocess.run([sys.executable, str(REPO / "training/benchmarks/resnet50/pytorch/prepare_digits.py"),
                        str(digits)], check=True)
    return training, [h["address"] for h in state["hosts"]], state


def busy_cpu_s() -> float:
    """Seconds of CPU the whole machine has spent busy (all cores), from /proc/stat."""
    fields = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    idle = fields[3] + fields[4]  # idle + iowait
    return (sum(fields[:8]) - idle) / os.sysconf("SC_CLK_TCK")


def hosts_cpu_s(state: dict) -> list[float] | None:
    """CPU seconds each simulated host has used (its cgroup's cpuacct.usage); None where
    simcluster could not give the hosts cgroups (no writable cgroup v1 cpu hierarchy)."""
    if not all(h.get("cpuacct") for h in state["hosts"]):
        return None
    return [int(Path(h["cpuacct"], "cpuacct.usage").read_text()) / 1e9 for h in state["hosts"]]


def cpu_share(cpus: float) -> None:
    subprocess.run([sys.executable, str(SIM), "cpu-share", "--cpus", str(cpus)], check=True,
                   stdout=subprocess.DEVNULL)


def run(work: Path, training: Path, hosts: list[str], state: dict, nnodes: int, rounds: int,
        digits: Path) -> tuple[float, Path, dict[str, Any]]:
    """Wall time, run dir, and CPU seconds: the chipperf process, each host, the machine."""
    cluster = work / "cluster.py"
    cluster.write_text(f"HOSTS = {hosts[:nnodes]!r}\nSSH_USER = 'root'\nSSH_KEY = {state['ssh_key']!r}\n"
                       "MASTER_PORT = 29531\nWORK_ROOT = '/tmp/chipperf-bench'\n")
    test = work / "test.py"
    test.write_text(f"VENDOR = 'cpu'\nCASES = {{'resnet50:pytorch_2.13:xeon:{nnodes}:1:{rounds}': "
                    f"{str(digits)!r}}}\nRESULT_ROOT = {str(work / 'result')!r}\nSHM_SIZE = '1g'\n")
    before = set((work / "result").glob("run*"))
    started, children, busy, per_host = time.monotonic(), os.times(), busy_cpu_s(), hosts_cpu_s(state)
    proc = subprocess.run([sys.executable, "-m", "chipperf.cli", "run", "--cluster", str(cluster),
                           "--test", str(test), "--case-root", str(training)], cwd=work,
                          capture_output=True, text=True)
    wall = time.monotonic() - started
    after = os.times()
    master_cpu = (after.children_user - children.children_user
                  + after.children_system - children.children_system)
    after_hosts = hosts_cpu_s(state)
    cpu = {"master": master_cpu, "machine": busy_cpu_s() - busy,
           "hosts": None if per_host is None or after_hosts is None else
           [b - a for a, b in zip(per_host, after_hosts)][:nnodes]}
    if proc.returncode != 0:
        sys.exit(f"run failed ({proc.returncode}):\n{proc.stderr[-4000:]}")
    (run_dir,) = set((work / "result").glob("run*")) - before
    return wall, run_dir, cpu


def per_round(run_dir: Path) -> tuple[list[float], list[float], float]:
    record = json.loads((run_dir / "run.json").read_text())
    (case_dir, case), = record["cases"].items()
    overheads, harness, in_rounds = [], [], 0.0
    for rnd in case["rounds"]:
        wall = (rnd["finished_ms"] - rnd["started_ms"]) / 1000
        node0 = next((run_dir / case_dir / f"round{rnd['number']}").glob("*_noderank0"))
        events, _ = parse_lines((node0 / "rank0.out.log").read_text().splitlines())
        e2e = next(e.value["e2e_time_s"] for e in events if e.name == "FINISHED")
        lives = [c["finished_ms"] - c["started_ms"] for c in rnd["containers"].values()]
        overheads.append(wall - e2e)
        harness.append(wall - max(lives) / 1000)
        in_rounds += wall
    return overheads, harness, in_rounds


def measure(work: Path, training: Path, hosts: list[str], state: dict, rounds: int,
            digits: Path) -> None:
    total, own = {}, {}
    for nnodes in (1, 3):
        wall, run_dir, cpu = run(work, training, hosts, state, nnodes, rounds, digits)
        overheads, harness, in_rounds = per_round(run_dir)
        total[nnodes], own[nnodes] = statistics.median(overheads), statistics.median(harness)
        host_cpu = "n/a" if cpu["hosts"] is None else \
            ", ".join(f"{c / rounds:.2f}" for c in cpu["hosts"]) + " s"
        print(f"{nnodes} host(s): per round, wall - case e2e: median {total[nnodes]:.2f} s "
              f"({', '.join(f'{o:.2f}' for o in overheads)}); harness alone (wall - container "
              f"lifetime): median {own[nnodes]:.2f} s ({', '.join(f'{o:.2f}' for o in harness)}); "
              f"fixed per-run cost outside rounds {wall - in_rounds:.2f} s; CPU per round: "
              f"master {cpu['master'] / rounds:.2f} s, hosts {host_cpu}, whole machine "
              f"{cpu['machine'] / rounds:.2f} s (for {in_rounds / rounds:.2f} s of round wall "
              f"time on {os.cpu_count()} cores)", flush=True)
    print(f"ratio 3 hosts / 1 host: wall - e2e {total[3] / total[1]:.2f}, harness alone "
          f"{own[3] / own[1]:.2f} (targets: < 5 s per round, ratio <= 1.3)", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--host-cpus", type=float, default=round(0.9 * (os.cpu_count() or 1) / 3, 2),
                        help="CPUs per simulated host in the second pass (0: skip it)")
    parser.add_argument("--keep", type=Path, metavar="DIR",
                        help="work in DIR and keep it (result dirs with run.log timelines)")
    args = parser.parse_args()
    digits = Path("/var/lib/chipperf-test/data/digits")
    with tempfile.TemporaryDirectory(prefix="chipperf-bench-") as tmp:
        work = Path(tmp) if args.keep is None else args.keep
        work.mkdir(parents=True, exist_ok=True)
        training, hosts, state = setup(work, digits)
        can_cap = hosts_cpu_s(state) is not None
        print("warm-up (builds and ships the image; not measured) ...", flush=True)
        if can_cap:
            cpu_share(0)
        run(work, training, hosts, state, 3, 1, digits)
        print("hosts sharing the machine's cores freely:", flush=True)
        measure(work, training, hosts, state, args.rounds, digits)
        if args.host_cpus > 0 and not can_cap:
            print("equal-CPU pass skipped: the simulated hosts have no cgroups here (simcluster "
                  "needs writable cgroup v1 cpu and cpuacct hierarchies)", flush=True)
        elif args.host_cpus > 0:
            print(f"every host capped at {args.host_cpus:g} CPU(s):", flush=True)
            try:
                cpu_share(args.host_cpus)
                measure(work, training, hosts, state, args.rounds, digits)
            finally:
                cpu_share(0)
        print(f"load average at the end: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")


if __name__ == "__main__":
    main()
