"""Config loading: both forms, FlagPerf compatibility, every problem at once."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from chipperf.config import CaseKey, load_cluster, load_test
from chipperf.errors import ConfigError

FLAGPERF_TEST_CONF = '''
VENDOR = "nvidia"
ACCE_CONTAINER_OPT = " --gpus all"
ACCE_VISIBLE_DEVICE_ENV_NAME = "CUDA_VISIBLE_DEVICES"
PIP_SOURCE = "https://mirror.baidu.com/pypi/simple"
FLAGPERF_PATH = "/home/FlagPerf/training"
FLAGPERF_LOG_PATH = "./result/"
FLAGPERF_LOG_LEVEL = "debug"
SHM_SIZE = "32G"
CLEAR_CACHES = True
CASES = {
    "bert:pytorch_1.8:A100:1:8:1": "/raid/dataset/bert/train/",
    "resnet50:pytorch_2.13:A100:2:8:3": "/raid/dataset/ImageNet_1k_2012/",
}
'''


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def test_flagperf_py_test_conf_loads_and_warns_about_unused(tmp_path, caplog):
    path = write(tmp_path, "test_conf.py", FLAGPERF_TEST_CONF + "SOMETHING_ELSE = 1\n")
    with caplog.at_level(logging.WARNING):
        test = load_test(path)
    assert test.vendor == "nvidia"
    assert test.container_opt == " --gpus all"
    assert test.visible_devices_env == "CUDA_VISIBLE_DEVICES"
    assert test.image.pip_index_url == "https://mirror.baidu.com/pypi/simple"
    assert test.result_root == "./result/"
    assert test.shm_size == "32g" and test.clear_caches is True
    assert [str(c.key) for c in test.cases] == ["bert:pytorch_1.8:A100:1:8:1",
                                               "resnet50:pytorch_2.13:A100:2:8:3"]
    assert test.cases[1].key.repeat == 3 and test.cases[1].key.family == "pytorch"
    assert "SOMETHING_ELSE is not used" in caplog.text
    assert "FLAGPERF_PATH" not in caplog.text  # known FlagPerf names are ignored quietly


def test_flagperf_cluster_conf_ports_as_strings(tmp_path):
    path = write(tmp_path, "cluster_conf.py",
                 'HOSTS = ["10.1.2.3", "10.1.2.4"]\nSSH_PORT = "22"\nMASTER_PORT = "29501"\n')
    cluster = load_cluster(path)
    assert cluster.hosts == ("10.1.2.3", "10.1.2.4")
    assert cluster.ssh_port == 22 and cluster.master_port == 29501
    assert cluster.host_key_policy == "verify"


def test_yaml_form_gives_the_same_objects(tmp_path):
    py = load_test(write(tmp_path, "t.py", FLAGPERF_TEST_CONF))
    yml = load_test(write(tmp_path, "t.yaml", """
vendor: nvidia
acce_container_opt: " --gpus all"
acce_visible_device_env_name: CUDA_VISIBLE_DEVICES
pip_source: https://mirror.baidu.com/pypi/simple
flagperf_log_path: ./result/
flagperf_log_level: debug
shm_size: 32G
clear_caches: true
cases:
  "bert:pytorch_1.8:A100:1:8:1": /raid/dataset/bert/train/
  "resnet50:pytorch_2.13:A100:2:8:3": /raid/dataset/ImageNet_1k_2012/
"""))
    assert py == yml


def test_every_problem_is_reported_at_once(tmp_path):
    path = write(tmp_path, "bad.py", '''
CASES = {"resnet50:pytorch:xeon:1:2": "/d", "bert:pytorch:a:0:1:1": "/d"}
SHM_SIZE = "1g"
ROUND_TIMEOUT = -5
MONITOR_INTERVAL = "fast"
''')
    with pytest.raises(ConfigError) as err:
        load_test(path)
    text = str(err.value)
    assert len(err.value.problems) == 5, text
    assert "VENDOR: not set" in text
    assert "has 5 ':'-separated parts" in text
    assert "nnodes '0' must be a whole number >= 1" in text
    # named as the file wrote them (FlagPerf's names), not chipperf's internal keys
    assert "bad.py: ROUND_TIMEOUT: -5 is not valid (must be > 0)" in text
    assert "bad.py: MONITOR_INTERVAL: 'fast' is not valid" in text
    assert "ROUND_TIMEOUT_S" not in text and "MONITOR_INTERVAL_S" not in text
    assert all(p.startswith(str(path)) for p in err.value.problems)


def test_python_config_is_read_as_data_not_executed(tmp_path):
    marker = tmp_path / "executed"
    path = write(tmp_path, "evil.py", f'import os\nos.system("touch {marker}")\n'
                                      f'HOSTS = [str(1)]\n')
    with pytest.raises(ConfigError) as err:
        load_cluster(path)
    assert not marker.exists()
    assert [p.split(": ", 1)[0] for p in err.value.problems] == [f"{path}:2", f"{path}:3"]
    assert "call to os.system() needs real execution" in err.value.problems[0]
    assert "HOSTS: calls str(), which needs real execution" in err.value.problems[1]


def test_cluster_problems(tmp_path):
    path = write(tmp_path, "c.yaml", "hosts: [a, a]\nssh_port: 70000\nhost_key_policy: yolo\n")
    with pytest.raises(ConfigError) as err:
        load_cluster(path)
    text = str(err.value)
    assert "c.yaml: hosts: 'a' listed more than once: list each host once" in text
    assert "c.yaml: ssh_port: 70000" in text and "'yolo' is not a policy" in text
    assert "no hosts listed" not in text


def test_missing_file_and_bad_syntax(tmp_path):
    with pytest.raises(ConfigError, match="no such file"):
        load_test(tmp_path / "nope.py")
    with pytest.raises(ConfigError, match="syntax error"):
        load_test(write(tmp_path, "s.py", "VENDOR = (\n"))
    with pytest.raises(ConfigError, match="not valid YAML"):
        load_test(write(tmp_path, "s.yaml", "vendor: [\n"))


@pytest.mark.parametrize("text,why", [
    ("a:b:c:1:1", "has 5 ':'-separated parts, expected 6"),
    ("a:b:c:1:1:x", "repeat 'x' must be a whole number >= 1"),
    ("a b:c:d:1:1:1", "model 'a b' must be letters, digits"),
    ("a:b:c:1:-1:1", "nproc '-1' must be a whole number >= 1"),
])
def test_malformed_case_keys(text, why):
    with pytest.raises(ValueError, match=why):
        CaseKey.parse(text)


def test_case_key_parts():
    key = CaseKey.parse("llama2_7b:deepspeed_0.16:H100:2:8:3")
    assert key.family == "deepspeed"
    assert key.vendor_config_name == "config_H100x2x8.py"
    assert key.slug == "llama2_7b-deepspeed_0.16-H100-2x8"
    assert str(key) == "llama2_7b:deepspeed_0.16:H100:2:8:3"
