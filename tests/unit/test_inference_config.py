"""inference/configs/host.yaml -> the same typed configs and plan as training."""

from __future__ import annotations

from pathlib import Path

import pytest

from chipperf.config.inference import load_inference
from chipperf.plan import check, make_plan
from chipperf.suites.catalogue import Catalogue


@pytest.fixture
def suite(tmp_path: Path) -> Path:
    root = tmp_path / "inference"
    files = {
        "benchmarks/resnet50/pytorch/run_inference.py": "",
        "benchmarks/bert_large/pytorch/run_inference.py": "",
        "configs/resnet50/configuration.yaml": "batch_size: 8\nrepeat: 2\n",
        "configs/resnet50/vendor_config/cpu_configuration.yaml": "batch_size: 4\n",
        "configs/bert_large/configuration.yaml": "batch_size: 1\n",
        "configs/bert_large/vendor_config/cpu_configuration.yaml": "{}\n",
        "cpu/docker_image/pytorch_2.13/Dockerfile": "FROM x\n",
    }
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root


HOST_YAML = """
FLAGPERF_PATH: /home/FlagPerf/inference
FLAGPERF_LOG_PATH: result
VENDOR: cpu
CHIP: xeon
FLAGPERF_LOG_LEVEL: INFO
LOG_CALL_INFORMATION: True
HOSTS: ["10.0.0.1", "10.0.0.2"]
SSH_PORT: "22"
MASTER_PORT: "29501"
SHM_SIZE: 4G
CLEAR_CACHES: True
CASES:
  "resnet50:pytorch_2.13": /data/imagenet/val
  "bert_large:pytorch_2.13": /data/text
"""


def test_host_yaml_plans_one_node_per_case_spread_over_hosts(suite, tmp_path):
    host = tmp_path / "host.yaml"
    host.write_text(HOST_YAML)
    cluster, test, problems = load_inference(host, suite)
    assert problems == []
    assert cluster.hosts == ("10.0.0.1", "10.0.0.2") and test.suite == "inference"
    assert [str(c.key) for c in test.cases] == ["resnet50:pytorch_2.13:xeon:1:1:2",
                                               "bert_large:pytorch_2.13:xeon:1:1:1"]
    catalogue = Catalogue.scan(suite, suite="inference")
    assert check(cluster, test, catalogue) == []
    plan = make_plan(cluster, test, catalogue, "run1", Path("result"))
    resnet, bert = plan.cases
    assert [n.host for r in resnet.rounds for n in r.nodes] == ["10.0.0.1", "10.0.0.1"]
    assert [n.host for r in bert.rounds for n in r.nodes] == ["10.0.0.2"]
    node = bert.rounds[0].nodes[0]
    cmd = list(node.command)
    entry = cmd.index(f"{node.work_dir}/code/benchmarks/bert_large/pytorch/run_inference.py")
    assert cmd[entry + 1:entry + 7] == [
        "--data_dir", "/data/text", "--extern_config_dir", f"{node.work_dir}/code/vendor/bert_large-pytorch",
        "--extern_config_file", "cpu_configuration.yaml"]
    targets = {u.target for u in plan.uploads}
    assert {"code/chipperf_runtime", "code/vendor/resnet50-pytorch"} <= targets


def test_inference_config_problems(suite, tmp_path):
    host = tmp_path / "host.yaml"
    host.write_text("VENDOR: acme\nHOSTS: [a]\nCASES:\n  'resnet50:pytorch_2.13': /d\n  'x': /d\n")
    _, _, problems = load_inference(host, suite)
    text = "\n".join(problems)
    assert "names no chip and CHIP is not set" in text and "case key 'x'" in text
    host.write_text("VENDOR: nvidia\nCHIP: H100\nHOSTS: [a]\nCASES:\n  'resnet50:pytorch_2.13': /d\n")
    cluster, test, _ = load_inference(host, suite)
    problems = check(cluster, test, Catalogue.scan(suite, suite="inference"))
    assert any("nvidia_configuration.yaml" in p for p in problems), problems
    assert any("no image folder" in p for p in problems), problems


def test_overrides_reach_every_case_as_sets_and_a_key_a_case_lacks_is_named(suite, tmp_path):
    host = tmp_path / "host.yaml"
    host.write_text(HOST_YAML + "OVERRIDES: {batch_size: 2}\n")
    cluster, test, problems = load_inference(host, suite)
    catalogue = Catalogue.scan(suite, suite="inference")
    assert problems == [] and check(cluster, test, catalogue) == []
    plan = make_plan(cluster, test, catalogue, "run1", Path("result"))
    for case in plan.cases:
        cmd = list(case.rounds[0].nodes[0].command)
        assert cmd[cmd.index("--set") + 1] == "batch_size=2", cmd
    host.write_text(HOST_YAML + "OVERRIDES: {batch_sise: 2}\n")
    cluster, test, _ = load_inference(host, suite)
    problems = check(cluster, test, catalogue)
    assert len(problems) == 2 and all("batch_sise" in p and "resnet50" in p or "bert_large" in p
                                      for p in problems), problems
