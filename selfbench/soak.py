"""Soak: N back-to-back runs of a tiny case in ONE master process, and whether anything grows.

    python3 selfbench/soak.py [--runs 50] [--hosts h4,h5,h6] [--tiny] [--max-minutes M]
                               [--cluster C --test T] [--keep DIR]

Without --cluster/--test it runs resnet50 (a few optimizer steps at 32x32 on scikit-learn's
digits, case `resnet50:pytorch_2.13:xeon:2:1:1`) on the simulated cluster
(`tests/simcluster/simcluster.py up --hosts 3`, or `up --only` the hosts named by --hosts,
run by this script; needs root), and measures all three hosts (the case runs on the first
two; the third, listed in the cluster config, is measured too). The runs go through
`chipperf.run.controller.run` in this process, so a leak of the master (memory, file descriptors,
threads, SSH connections) accumulates where it can be seen. --max-minutes M starts no run
after M minutes (the summary then covers the runs done, and says how many). After each run it prints:

    run  wall_s  status  master: rss_mib fds threads  per host: containers images work_kib

and at the end each series' least-squares slope per run (and over the whole soak): flat
means ~0 (RSS settles after the first runs, so its slope is also given over the second
half). Container and image counts are of chipperf's own (label chipperf.run, repository
chipperf/*); work_kib is `du -sk WORK_ROOT` on the host.
"""

from __future__ import annotations

import argparse
import json
import logging
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import psutil

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from chipperf.cli import load_all  # noqa: E402
from chipperf.containers.spec import LABEL_RUN  # noqa: E402
from chipperf.remote.host import open_host  # noqa: E402
from chipperf.run import controller  # noqa: E402

SIM = REPO / "tests/simcluster/simcluster.py"
CASE = "resnet50:pytorch_2.13:xeon:2:1:1"
TINY_CASE = "resnet50:pytorch_2.13:xeon:1:1:1"    # --tiny: on the first host, one epoch
DIGITS = Path("/var/lib/chipperf-test/data/digits")


def tiny_inputs(where: Path) -> tuple[Path, Path]:
    """--tiny: 8 training and 2 validation digits per class, and a copy of training/ whose
    resnet50 1x1 CPU config runs one epoch with no accuracy target (same image)."""
    digits, training = where / "tiny-digits", where / "training"
    if not digits.is_dir():
        for split, keep in (("train", 8), ("val", 2)):
            for label in sorted((DIGITS / split).iterdir()):
                (digits / split / label.name).mkdir(parents=True)
                for image in sorted(label.iterdir())[:keep]:
                    shutil.copy(image, digits / split / label.name / image.name)
        shutil.copy(DIGITS / "dataset.json", digits / "dataset.json")
    if not training.is_dir():
        shutil.copytree(REPO / "training", training, ignore=shutil.ignore_patterns("__pycache__"))
        config = training / "cpu/resnet50-pytorch/config/config_xeonx1x1.py"
        config.write_text(config.read_text() + "\n# soak --tiny: one epoch, whatever accuracy\n"
                          "max_epochs = 1\ntarget_accuracy = 0.0\n")
    return digits, training


def sim_configs(where: Path, names: list[str], tiny: bool) -> tuple[Path, Path]:
    """Configs for the simulated hosts ``names`` (e.g. h4,h5,h6; none: the first three)."""
    up = ["--only", ",".join(names)] if names else ["--hosts", "3"]
    subprocess.run([sys.executable, str(SIM), "up", *up], check=True)
    state = json.loads(Path("/run/chipperf-sim/cluster.json").read_text())
    if not (DIGITS / "train").is_dir():
        subprocess.run([sys.executable, str(REPO / "training/benchmarks/resnet50/pytorch/"
                                            "prepare_digits.py"), str(DIGITS)], check=True)
    by_name = {h["name"]: h["address"] for h in state["hosts"]}
    hosts = [by_name[n] for n in names] if names else [h["address"] for h in state["hosts"][:3]]
    cluster, test = where / "cluster_conf.py", where / "test_conf.py"
    cluster.write_text(f"HOSTS = {hosts!r}\nSSH_USER = 'root'\nSSH_KEY = {state['ssh_key']!r}\n"
                       f"KNOWN_HOSTS = {state['known_hosts']!r}\nWORK_ROOT = '/tmp/chipperf-soak'\n"
                       "MASTER_PORT = 29531\n")
    case, data, extra = CASE, DIGITS, ""
    if tiny:
        digits, training = tiny_inputs(where)
        case, data, extra = TINY_CASE, digits, f"TRAINING_DIR = {str(training)!r}\n"
    test.write_text(f"VENDOR = 'cpu'\nCASES = {{{case!r}: {str(data)!r}}}\nSHM_SIZE = '1g'\n"
                    f"RESULT_ROOT = {str(where / 'result')!r}\nROUND_TIMEOUT = 900\n" + extra)
    return cluster, test


def host_usage(hosts: list, work_root: str) -> dict[str, tuple[int, int, int]]:
    usage = {}
    for host in hosts:
        client = host.docker()
        containers = len(client.containers.list(all=True, filters={"label": LABEL_RUN}))
        images = sum(1 for i in client.images.list() if any(t.startswith("chipperf/")
                                                            for t in i.tags))
        du = host.run(["du", "-sk", work_root], check=False).stdout.split()
        usage[host.name] = (containers, images, int(du[0]) if du else 0)
    return usage


def slope(values: list[float]) -> float:
    n = len(values)
    if n < 2:
        return 0.0
    mean_x, mean_y = (n - 1) / 2, sum(values) / n
    num = sum((i - mean_x) * (v - mean_y) for i, v in enumerate(values))
    return num / sum((i - mean_x) ** 2 for i in range(n))


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--runs", type=int, default=50)
    p.add_argument("--hosts", default="", help="simulated hosts to use, e.g. h4,h5,h6 "
                   "(default: the first three); not with --cluster")
    p.add_argument("--tiny", action="store_true",
                   help=f"{TINY_CASE} for one epoch of 80 digits (one simulated host's worth "
                   "of image; the other hosts are still checked, claimed and swept each run)")
    p.add_argument("--max-minutes", type=float, default=0,
                   help="start no run after this many minutes (0: no limit)")
    p.add_argument("--cluster")
    p.add_argument("--test")
    p.add_argument("--keep", help="directory for configs and results (default: a temp dir)")
    args = p.parse_args()
    where = Path(args.keep or tempfile.mkdtemp(prefix="chipperf-soak-"))
    where.mkdir(parents=True, exist_ok=True)
    if bool(args.cluster) != bool(args.test) or (args.cluster and args.hosts):
        p.error("give both --cluster and --test, or neither (and then --hosts if you like)")
    names = [n.strip() for n in args.hosts.split(",") if n.strip()]
    if any(re.fullmatch(r"h[1-9]\d*", n) is None for n in names) or len(names) not in (0, 3):
        p.error(f"--hosts {args.hosts!r}: want three simulated host names, e.g. h4,h5,h6")
    cluster_file, test_file = ((args.cluster, args.test) if args.cluster
                               else sim_configs(where, names, args.tiny))
    cluster, test, catalogue = load_all(str(cluster_file), str(test_file), None)
    logging.getLogger("chipperf").setLevel(logging.WARNING)
    me = psutil.Process()
    probes = [open_host(h, cluster) for h in cluster.hosts]
    series: dict[str, list[float]] = {}
    print("run  wall_s  status     rss_mib  fds  threads  " +
          "  ".join(f"{h.name}:containers,images,work_kib" for h in probes))
    soak_started = time.monotonic()
    done = 0
    for n in range(1, args.runs + 1):
        if args.max_minutes and time.monotonic() - soak_started > args.max_minutes * 60:
            print(f"--max-minutes {args.max_minutes:g}: stopped after {done} of {args.runs} runs")
            break
        started = time.monotonic()
        outcome = controller.run(cluster, test, catalogue, suite=test.suite)
        wall = time.monotonic() - started
        usage = host_usage(probes, cluster.work_root)
        row = {"wall_s": wall, "rss_mib": me.memory_info().rss / 2**20, "fds": me.num_fds(),
               "threads": me.num_threads()}
        for name, (containers, images, work) in usage.items():
            row.update({f"{name} containers": containers, f"{name} images": images,
                        f"{name} work_kib": work})
        for key, value in row.items():
            series.setdefault(key, []).append(float(value))
        status = "succeeded" if outcome.ok else "FAILED"
        print(f"{n:3d}  {wall:6.1f}  {status:9s}  {row['rss_mib']:7.1f}  {row['fds']:3d}  "
              f"{row['threads']:7d}  " + "  ".join(f"{c},{i},{w}" for c, i, w in usage.values()),
              flush=True)
        done = n
    for host in probes:
        host.close()
    print(f"\n{done} runs in {time.monotonic() - soak_started:.0f} s; "
          "slope per run (least squares over all runs; second half in brackets):")
    for key, values in series.items():
        half = values[len(values) // 2:]
        print(f"  {key:28s} {slope(values):+9.3f}  [{slope(half):+9.3f}]   "
              f"first {values[0]:.1f}  last {values[-1]:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
