"""HOSTS as SSH can reach them, and configs of the wrong YAML type, named as such."""

from __future__ import annotations

from pathlib import Path

import pytest

from chipperf.config.load import load_cluster, load_test
from chipperf.errors import ConfigError


def write(tmp_path: Path, hosts: str, cases: str = "{'resnet50:pytorch_2.13:xeon:1:1:1': '/d'}"):
    (tmp_path / "cluster.yaml").write_text(f"hosts: {hosts}\n")
    (tmp_path / "test.yaml").write_text(f"vendor: cpu\ncases: {cases}\n")
    return tmp_path / "cluster.yaml", tmp_path / "test.yaml"


@pytest.mark.parametrize("hosts,message", [
    ('["10.231.0.13;touch /tmp/x"]', "host '10.231.0.13;touch /tmp/x' is neither an IP address"),
    ('["node 1"]', "host 'node 1' is neither"),
    ('"10.0.0.1 10.0.0.2"', "hosts: '10.0.0.1 10.0.0.2' is not valid (a str, expected a list"),
    ("[10]", "host 10 is a int, not a string"),
])
def test_hosts_ssh_cannot_reach_are_refused(tmp_path, hosts, message) -> None:
    with pytest.raises(ConfigError, match=message.replace("(", r"\(")):
        load_cluster(write(tmp_path, hosts)[0])


def test_good_hosts_pass(tmp_path) -> None:
    cluster = load_cluster(write(tmp_path, '["10.0.0.1", "node-2.example.com", "fe80::1", '
                                           '"gpu_07", "localhost"]')[0])
    assert cluster.hosts == ("10.0.0.1", "node-2.example.com", "fe80::1", "gpu_07", "localhost")


def test_cases_given_as_a_list_is_named_as_a_wrong_type(tmp_path) -> None:
    with pytest.raises(ConfigError, match="cases: a list, expected a mapping of case key to "
                                          "data dir"):
        load_test(write(tmp_path, '["10.0.0.1"]', "['resnet50:pytorch_2.13:xeon:1:1:1']")[1])
