"""Bad input in the configs (issue 27): each gets one message, naming the key as the user
wrote it and what type or value was expected; nothing else is said about it."""

from __future__ import annotations

from pathlib import Path

import pytest

from chipperf.config.load import load_cluster, load_test
from chipperf.errors import ConfigError


def problems(path: Path, load=load_cluster) -> list[str]:
    with pytest.raises(ConfigError) as err:
        load(path)
    return [p.removeprefix(f"{path}: ") for p in err.value.problems]


def cluster(tmp_path: Path, text: str, name: str = "cluster_conf.py") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def test_known_hosts_as_a_list_is_named_as_the_wrong_type(tmp_path) -> None:
    path = cluster(tmp_path, "HOSTS = ['10.0.0.1']\n"
                             "KNOWN_HOSTS = ['~/.ssh/known_hosts', '/etc/ssh/known']\n")
    assert problems(path) == [
        "KNOWN_HOSTS: ['~/.ssh/known_hosts', '/etc/ssh/known'] is not valid (a list, expected "
        "one string): give the path of one known_hosts file, e.g. '~/.ssh/known_hosts'"]


@pytest.mark.parametrize("key, value", [("SSH_KEY", "['/k1', '/k2']"), ("WORK_ROOT", "7"),
                                        ("SSH_USER", "{'name': 'root'}")])
def test_other_one_string_settings_are_type_checked(tmp_path, key, value) -> None:
    path = cluster(tmp_path, f"HOSTS = ['10.0.0.1']\n{key} = {value}\n")
    (found,) = problems(path)
    assert found.startswith(f"{key}: ") and "expected one string" in found


def test_a_host_with_shell_metacharacters_gets_one_message(tmp_path) -> None:
    path = cluster(tmp_path, "HOSTS = ['10.0.0.1', 'h2;rm -rf /']\n")
    assert problems(path) == [
        "HOSTS: ['10.0.0.1', 'h2;rm -rf /'] is not valid (host 'h2;rm -rf /' is neither an IP "
        "address nor a host name (letters, digits, '-', '_', '.')): list the hosts, e.g. "
        "HOSTS = ['10.1.2.3', '10.1.2.4']"]


def test_no_hosts_is_said_when_none_are_listed(tmp_path) -> None:
    assert problems(cluster(tmp_path, "HOSTS = []\n")) == [
        "HOSTS: no hosts listed: set HOSTS to a list of addresses; the first is the master"]
    assert problems(cluster(tmp_path, "SSH_PORT = 22\n")) == [
        "HOSTS: no hosts listed: set HOSTS to a list of addresses; the first is the master"]


def test_a_duplicate_host_is_named(tmp_path) -> None:
    path = cluster(tmp_path, "HOSTS = ['10.0.0.1', '10.0.0.2', '10.0.0.1', 'b', 'b']\n")
    assert problems(path) == ["HOSTS: '10.0.0.1', 'b' listed more than once: list each host once"]


@pytest.mark.parametrize("written", ["ROUND_TIMEOUT", "round_timeout", "ROUND_TIMEOUT_S"])
def test_errors_name_the_key_as_written(tmp_path, written) -> None:
    """FlagPerf's name, or chipperf's, in whatever case the file used."""
    path = tmp_path / "test_conf.py"
    path.write_text(f"VENDOR = 'cpu'\nCASES = {{'resnet50:pytorch_2.13:xeon:1:1:1': '/d'}}\n"
                    f"{written} = -1\nMONITOR_INTERVAL = 'often'\n")
    found = problems(path, load_test)
    assert found[0] == (f"{written}: -1 is not valid (must be > 0): use seconds > 0 and at most "
                        "2592000 (30 days)")
    assert found[1].startswith("MONITOR_INTERVAL: 'often' is not valid")
    assert len(found) == 2


def test_yaml_keys_are_named_as_written_too(tmp_path) -> None:
    path = cluster(tmp_path, "hosts: ['10.0.0.1']\nknown_hosts: [a, b]\n", "cluster.yaml")
    (found,) = problems(path)
    assert found.startswith("known_hosts: ['a', 'b'] is not valid (a list, expected one string)")


def test_plan_time_problems_name_the_key_as_written(tmp_path) -> None:
    """A result root that cannot be written, given under FlagPerf's FLAGPERF_LOG_PATH, is
    named so; written as RESULT_ROOT, as RESULT_ROOT."""
    from chipperf.cli import load_all

    blocker = tmp_path / "a-file"
    blocker.write_text("")
    cluster_path = cluster(tmp_path, "HOSTS = ['10.0.0.1']\n")
    for key in ("FLAGPERF_LOG_PATH", "RESULT_ROOT"):
        test = tmp_path / "test_conf.py"
        test.write_text(f"VENDOR = 'cpu'\nCASES = {{'resnet50:pytorch_2.13:xeon:1:1:1': '/d'}}\n"
                        f"{key} = {str(blocker / 'result')!r}\n")
        with pytest.raises(ConfigError) as err:
            load_all(str(cluster_path), str(test), None)
        assert f"{test}: {key} {str(blocker / 'result')!r}: {blocker} is not a directory" in \
            str(err.value)


@pytest.mark.parametrize(("text", "expected"), [
    ('IN_CONTAINER_LAUNCH = True\nIN_CONTAINER_NAME = "vendor pytorch"\n',
     "IN_CONTAINER_NAME: 'vendor pytorch' is not a Docker container name: give the name "
     "`docker ps` shows, e.g. 'vendor-pytorch'"),
    ('IN_CONTAINER_NAME = "vendor-pytorch"\n',
     "IN_CONTAINER_NAME: set without IN_CONTAINER_LAUNCH = True: set IN_CONTAINER_LAUNCH = True "
     "too, or leave IN_CONTAINER_NAME out to let chipperf start its own containers"),
])
def test_in_container_name_is_checked(tmp_path, text, expected) -> None:
    path = cluster(tmp_path, f'VENDOR = "cpu"\nCASES = {{"resnet50:pytorch_2.13:xeon:1:1:1": '
                             f'"/data"}}\n{text}', "test_conf.py")
    assert problems(path, load_test) == [expected]


def test_in_container_name_with_the_launch_is_read(tmp_path) -> None:
    path = cluster(tmp_path, 'VENDOR = "cpu"\nCASES = {"resnet50:pytorch_2.13:xeon:1:1:1": "/data"}\n'
                             'IN_CONTAINER_LAUNCH = True\n'
                             'IN_CONTAINER_NAME = "vendor-pytorch_2.13"\n', "test_conf.py")
    test = load_test(path)
    assert (test.in_container_launch, test.in_container_name) == (True, "vendor-pytorch_2.13")
