"""End to end: `chipperf run` of a 3 x 3 SWEEPS grid of gpt2's tiny CI preset on one simulated
host, its container capped by ACCE_CONTAINER_OPT's --memory; the largest batch at the longest
sequence crosses the cap and is OOMKilled, the other eight points succeed, and run.json,
sweep.csv and report.html name that point and the edge.

The cap sits between the points' memory, measured on this machine (docs/sweeps.md "Measured
here"): the container's cgroup peak (memory.max_usage_in_bytes) was at most 970 MiB at
global_batch_size 128 x seq_len 32 and 1,782 MiB at 128 x 128 (uncapped); rank 0's peak RSS
1,010 MB and 1,826 MB. A cap of 1,400 MiB leaves ~400 MiB either side, and memory, unlike time,
does not move with the machine's load.
"""

from __future__ import annotations

import csv
import io
import json

import pytest
from conftest import chipperf, leftovers, write_configs

pytestmark = pytest.mark.e2e

KEY = "gpt2:pytorch_2.13:xeon:1:1:1"
CASE_DIR = "gpt2-pytorch_2.13-xeon-1x1"
GRID = {"global_batch_size": [2, 8, 128], "seq_len": [16, 32, 128]}
CAP_MIB = 1400
SWEEP = (f"OVERRIDES = {{'run_mode': 'performance', 'perf_warmup_steps': 1, 'timed_steps': 1, "
         f"'eval_samples': 8}}\nSWEEPS = {{{KEY!r}: {GRID!r}}}\nROUND_TIMEOUT = 300\n"
         f"ACCE_CONTAINER_OPT = '--memory {CAP_MIB}m --memory-swap {CAP_MIB}m'\n")


def test_a_capped_3x3_sweep_goes_past_its_out_of_memory_point_and_reports_the_edge(
        sim_cluster, gpt2_text_dir, tmp_path):
    host = sim_cluster.hosts[0]   # CI gives each e2e worker its own hosts (h1-h3 or h4-h6)
    cluster, test = write_configs(tmp_path, [host.address], {KEY: str(gpt2_text_dir)},
                                  ssh_key=sim_cluster.ssh_key, known_hosts=sim_cluster.known_hosts,
                                  master_port=29565, extra_test=SWEEP)
    run = chipperf("run", "--cluster", str(cluster), "--test", str(test), cwd=tmp_path)
    assert run.returncode == 1 and run.run_dir is not None, run
    assert "round 9: failed" in run.output and "OOMKilled" in run.output, run

    rounds = json.loads((run.run_dir / "run.json").read_text())["cases"][CASE_DIR]["rounds"]
    assert [r["status"] for r in rounds] == ["succeeded"] * 8 + ["failed"], rounds
    assert rounds[8]["point"] == {"global_batch_size": 128, "seq_len": 128}
    assert [c["oom_killed"] for r in rounds for c in r["containers"].values()] == [False] * 8 + [True]
    assert rounds[8]["reason"].startswith(f"node 0 ({host.address}): out of memory: "), rounds[8]

    rows = list(csv.DictReader(io.StringIO((run.run_dir / "sweep.csv").read_text())))
    print(*(f"{r['point']}: {r['status']} {r['throughput']} {r['throughput_unit']} peak "
            f"{r['peak_memory_bytes']} B {r['reason']}" for r in rows), sep="\n")
    assert [r["status"] for r in rows] == ["succeeded"] * 8 + ["oom"], rows
    assert "the kernel killed a process in it (OOMKilled)" in rows[8]["reason"]
    fitted = [int(r["peak_memory_bytes"]) for r in rows[:8]]
    assert all(float(r["throughput"]) > 0 for r in rows[:8])
    # the margin the cap was chosen with: a case whose memory grew past it fails here, by name
    assert max(fitted) < 0.8 * CAP_MIB * 2**20, f"peak RSS {max(fitted)} B: re-measure the cap"

    page = (run.run_dir / "report.html").read_text()
    assert "seq_len=128: global_batch_size 8 fits, 128 ran out of memory" in page
    for seq in (16, 32):
        assert f"seq_len={seq}: global_batch_size 128 fits, none ran out of memory" in page
    assert "Throughput vs global_batch_size (tokens/s), a line per seq_len" in page
    assert "Peak memory vs seq_len, a line per global_batch_size" in page
    assert "swept (global_batch_size): 2, 8, 128" in page and "swept (seq_len): 16, 32, 128" in page
    assert leftovers(sim_cluster, run.run_dir.name) == []
