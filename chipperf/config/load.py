"""Read cluster/test configs from FlagPerf-form ``.py`` (as data, never executed) or ``.yaml``.

Every problem is collected and raised at once as a ``ConfigError`` whose lines read
``where: what is wrong: how to fix``. Keys chipperf does not need are returned as
warnings, not errors, so FlagPerf's own config files load unchanged.
"""

from __future__ import annotations

import dataclasses
import logging
import os
import re
from pathlib import Path
from typing import Any, Mapping

from chipperf.config.fields import (
    ALL,
    Fields,
    RawConfig,
    as_count,
    as_flag,
    as_framework_match,
    as_host_list,
    as_overrides,
    as_port,
    as_str_tuple,
    as_text,
    as_time_limit,
)
from chipperf.config.flagperf_aliases import chipperf_case_name
from chipperf.config.limits import (
    SECONDS_FIX,
    closest,
    docker_size,
    host_path,
    image_reference,
    index_url,
    key_file,
    known_hosts_file,
    known_hosts_problem,
    non_empty,
    seconds,
)
from chipperf.config.model import (
    CASE_KEY_FORM,
    CaseEntry,
    CaseKey,
    ClusterConfig,
    ImageBuildConfig,
    SlurmConfig,
    TestConfig,
)
from chipperf.config.pyconfig import read_py_config
from chipperf.config.sweepread import read_sweeps
from chipperf.config.textread import load_yaml, read_utf8
from chipperf.errors import ConfigError
from chipperf.frameworks import MODES
from chipperf_runtime.monitors.command import DEFAULT_INTERVAL_S

log = logging.getLogger(__name__)

# FlagPerf's names -> chipperf's (after lower-casing).
ALIASES = {
    "pip_source": "pip_index_url",
    "flagperf_log_path": "result_root",
    "flagperf_log_level": "log_level",
    "acce_container_opt": "container_opt",
    "acce_visible_device_env_name": "visible_devices_env",
    "round_timeout": "round_timeout_s",
    "monitor_interval": "monitor_interval_s",
    "connect_timeout": "connect_timeout_s",
    "host_lost_after": "host_lost_after_s",
    "pip_extra_index_url": "pip_extra_index_urls",
    "pip_cert": "ca_bundle",
    "sweep_deadline": "sweep_deadline_s",
}
EXECUTORS = ("ssh", "slurm")
IGNORED = {"flagperf_path", "flagperf_ssh_port", "flagperf_log_file", "hosts_ports"}


def read_mapping(path: Path) -> dict[str, Any]:
    """A config file's top-level names -> values (keys lower-cased, aliases applied)."""
    raw = read_config(path)
    _raise_if(raw.problems)
    return raw.values


def read_config(path: Path) -> RawConfig:
    """Like ``read_mapping``, but the file's problems are returned, so that the problems of
    several files can be reported together (what could be read is still returned)."""
    if not path.is_file():
        what = "a folder, not a file" if path.is_dir() else "no such file"
        return RawConfig({}, [f"{path}: {what}: give the path of an existing .py or .yaml "
                              "config"], frozenset({ALL}))
    if path.suffix not in (".yaml", ".yml"):
        config = read_py_config(path)
        broken = frozenset({ALL}) if config.fatal else frozenset(_key(n) for n in config.unreadable())
        return RawConfig(_keys(config.public()), config.problems, broken, _written(config.public()))
    try:
        data = _read_yaml(path, read_utf8(path))
        return RawConfig(_keys(data), [], frozenset(), _written(data))
    except ConfigError as exc:
        return RawConfig({}, list(exc.problems), frozenset({ALL}))


def _key(name: str) -> str:
    return ALIASES.get(name.lower(), name.lower())


def _keys(raw: Mapping[str, Any]) -> dict[str, Any]:
    return {_key(k): v for k, v in raw.items()}


def _written(raw: Mapping[str, Any]) -> dict[str, str]:
    """Key -> the name the user wrote (FlagPerf's ROUND_TIMEOUT for round_timeout_s), so
    that a problem names what is in the file."""
    return {_key(k): str(k) for k in raw}


def _read_yaml(path: Path, text: str) -> dict[str, Any]:
    data = load_yaml(path, text) or {}
    if not isinstance(data, dict):
        raise ConfigError([f"{path}: the top level must be a mapping of settings"])
    return data


def finish(fields: Fields, known: set[str]) -> list[str]:
    """Warn about names chipperf does not use (with the closest name it does use); return
    the problems found."""
    names = sorted(fields.used | set(ALIASES))
    for key in fields.unused():
        if key not in known:
            written, close = fields.name(key), closest(key, names)
            hint = f" (did you mean {close.upper() if written.isupper() else close}?)" \
                if close else ""
            log.warning("%s: %s is not used by chipperf; ignored%s", fields.path, written, hint)
    return fields.problems


def _raise_if(problems: list[str]) -> None:
    if problems:
        raise ConfigError(problems)


def load_cluster(path: str | Path) -> ClusterConfig:
    config, problems = parse_cluster(path)
    _raise_if(problems)
    return config


def parse_cluster(path: str | Path) -> tuple[ClusterConfig, list[str]]:
    """The config (defaults where a value was bad) and every problem found."""
    path = Path(path)
    raw = read_config(path)
    f = Fields.of(path, raw)
    config = cluster_fields(f)
    return config, raw.problems + finish(f, IGNORED)


def cluster_fields(f: Fields) -> ClusterConfig:
    executor = f.get("executor", as_text, "ssh")
    if executor not in EXECUTORS:
        f.fail("executor", f"{executor!r} is not an executor", f"use one of {', '.join(EXECUTORS)}")
    slurm = slurm_fields(f) if executor == "slurm" else None
    hosts = slurm.placeholders if slurm is not None else _listed_hosts(f)
    twice = sorted({h for h in hosts if hosts.count(h) > 1})
    if twice:
        f.fail("hosts", f"{', '.join(repr(h) for h in twice)} listed more than once",
               "list each host once")
    policy = f.get("host_key_policy", str, "verify")
    if policy not in ("verify", "accept-any"):
        f.fail("host_key_policy", f"{policy!r} is not a policy", "use 'verify' or 'accept-any'")
    _check_known_hosts(f, hosts, policy)
    return ClusterConfig(
        hosts=hosts,
        ssh_port=f.get("ssh_port", as_port, 22, "use a TCP port number"),
        master_port=f.get("master_port", as_port, 29501, "use a free TCP port number"),
        ssh_user=f.get("ssh_user", as_text, None),
        ssh_key=f.get("ssh_key", key_file, None,
                      "give the path of the private key file on this master, or leave SSH_KEY "
                      "out to use the SSH agent and default keys"),
        known_hosts=f.get("known_hosts", known_hosts_file, "~/.ssh/known_hosts",
                          "give the path of one known_hosts file, e.g. '~/.ssh/known_hosts'"),
        host_key_policy=policy,
        connect_timeout_s=f.get("connect_timeout_s", seconds, 10.0, SECONDS_FIX),
        host_lost_after_s=f.get("host_lost_after_s", seconds, 60.0, SECONDS_FIX),
        work_root=f.get("work_root", host_path, "/tmp/chipperf",
                        "give an absolute path on the hosts, e.g. '/tmp/chipperf'"),
        executor=executor if executor in EXECUTORS else "ssh",
        slurm=slurm,
    )


def _check_known_hosts(f: Fields, hosts: tuple[str, ...], policy: str) -> None:
    """KNOWN_HOSTS, where the file names one, must exist when SSH will verify a host with it."""
    written = f.data.get("known_hosts")
    if isinstance(written, str) and written.strip():
        problem = known_hosts_problem(written, hosts, policy)
        if problem:
            f.problems.append(f"{f.path}: {f.name('known_hosts')}: {problem}")


def _listed_hosts(f: Fields) -> tuple[str, ...]:
    hosts: tuple[str, ...] = f.get("hosts", as_host_list, (),
                                   "list the hosts, e.g. HOSTS = ['10.1.2.3', '10.1.2.4']")
    given = f.data.get("hosts")
    if given is None or given in ([], ()):   # a value there but bad was said once, by f.get
        f.fail("hosts", "no hosts listed", "set HOSTS to a list of addresses; the first is the master")
    return hosts


def slurm_fields(f: Fields) -> SlurmConfig:
    """EXECUTOR = "slurm": Slurm picks the nodes, so HOSTS is not given."""
    if f.data.get("hosts") not in (None, [], ()):
        f.used.add("hosts")
        f.fail("hosts", "set together with EXECUTOR = 'slurm', which takes the nodes Slurm "
               "allocates", "remove HOSTS and set SLURM_NODES to the number of nodes to ask for")
    nodes = f.get("slurm_nodes", as_count, 0, "use a whole number >= 1")
    if "slurm_nodes" not in f.data:
        f.fail("slurm_nodes", "not set (EXECUTOR = 'slurm')",
               "set SLURM_NODES to the number of nodes to ask Slurm for (the largest nnodes of the cases)")
    return SlurmConfig(
        nodes=max(nodes, 1),
        partition=f.get("slurm_partition", as_text, None),
        account=f.get("slurm_account", as_text, None),
        queue_timeout_s=f.get("queue_timeout", seconds, 600.0, SECONDS_FIX),
        extra_args=_sbatch_extra_args(f),
        time_limit_min=f.get("slurm_time_limit", as_time_limit, None,
                             "give whole minutes, or Slurm's form such as '1:30:00'"),
    )


def _sbatch_extra_args(f: Fields) -> tuple[str, ...]:
    """SLURM_EXTRA_ARGS, without a time limit of its own (--time after chipperf's would win
    unseen by plan's check of the run's length against it)."""
    extra: tuple[str, ...] = f.get("slurm_extra_args", as_str_tuple, (),
                                   "give sbatch options as a list, e.g. ['--qos=bench']")
    if any(map(_sets_time_limit, extra)):
        f.fail("slurm_extra_args", "sets the job's time limit (--time / -t)",
               "give it as SLURM_TIME_LIMIT instead, which `chipperf plan` checks against the "
               "run's length")
        return tuple(a for a in extra if not _sets_time_limit(a))
    return extra


def _sets_time_limit(word: str) -> bool:
    return word == "--time" or word.startswith(("--time=", "-t"))




def _cases(f: Fields) -> tuple[CaseEntry, ...]:
    raw = f.get("cases", lambda v: v, {})
    if raw and not isinstance(raw, dict):
        f.fail("cases", f"a {type(raw).__name__}, expected a mapping of case key to data dir",
               f"write CASES = {{'{CASE_KEY_FORM}': '/path/to/data'}}")
        return ()
    if not raw:
        f.fail("cases", "no cases listed",
               f"set CASES = {{'{CASE_KEY_FORM}': '/path/to/data'}}")
        return ()
    entries = []
    for key, data_dir in raw.items():
        try:
            entries.append(CaseEntry(chipperf_named(f.path, "training", CaseKey.parse(str(key))),
                                     str(data_dir)))
        except ValueError as exc:
            f.fail("cases", f"case key {key!r} {exc}", f"write it as {CASE_KEY_FORM}")
    return tuple(entries)


def chipperf_named(path: Path, suite: str, key: CaseKey) -> CaseKey:
    """The key under chipperf's name of its case (FlagPerf's inference ``bertLarge`` is
    ``bert_large``, its training ``WaveGlow`` is ``waveglow``), said in a warning."""
    model = chipperf_case_name(suite, key.model)
    if model == key.model:
        return key
    log.warning("%s: case %s is FlagPerf's name of chipperf's %s: running %s "
                "(docs/flagperf-names.md)", path, key.model, model, model)
    return dataclasses.replace(key, model=model)


def _image(f: Fields) -> ImageBuildConfig:
    return ImageBuildConfig(
        pip_index_url=f.get("pip_index_url", index_url, None,
                            "give one URL, e.g. 'https://pypi.example.com/simple'"),
        pip_extra_index_urls=f.get("pip_extra_index_urls", as_str_tuple, ()),
        pip_find_links=f.get("pip_find_links", as_str_tuple, ()),
        wheelhouse=f.get("wheelhouse", as_text, None),
        ca_bundle=f.get("ca_bundle", as_text, None),
        http_proxy=f.get("http_proxy", as_text, None),
        https_proxy=f.get("https_proxy", as_text, None),
        no_proxy=f.get("no_proxy", as_text, None),
        debian_mirror=f.get("debian_mirror", as_text, "http://deb.debian.org/debian"),
        build_timeout_s=f.get("build_timeout_s", seconds, 3600.0, SECONDS_FIX),
        pip_from_master=f.get("pip_from_master", as_flag, True),
        base_image=f.get("base_image", image_reference, None,
                         "give an image such as 'registry.example.com/team/pytorch:24.03'"),
    )


def load_test(path: str | Path) -> TestConfig:
    config, problems = parse_test(path)
    _raise_if(problems)
    return config


def parse_test(path: str | Path) -> tuple[TestConfig, list[str]]:
    """The config (defaults where a value was bad, bad case keys left out) and every problem."""
    path = Path(path)
    raw = read_config(path)
    f = Fields.of(path, raw)
    config = test_fields(f, _cases(f))
    return config, raw.problems + finish(f, IGNORED)


def _exec_in_container() -> bool:
    """FlagPerf's switch for IN_CONTAINER_LAUNCH: ``export EXEC_IN_CONTAINER=True`` on the master."""
    return os.environ.get("EXEC_IN_CONTAINER", "").strip().lower() in ("true", "1", "yes")


CONTAINER_NAME = re.compile(r"[a-zA-Z0-9][a-zA-Z0-9_.-]*")   # what Docker accepts as a name


def _in_container_name(f: Fields) -> str | None:
    """IN_CONTAINER_NAME: the running container on each host the cases run in; only with
    IN_CONTAINER_LAUNCH (else the cases run in containers chipperf starts)."""
    name = f.get("in_container_name", as_text, None)
    if name is None:
        return None
    if not CONTAINER_NAME.fullmatch(name):
        f.fail("in_container_name", f"{name!r} is not a Docker container name",
               "give the name `docker ps` shows, e.g. 'vendor-pytorch'")
        return None
    if not f.get("in_container_launch", as_flag, _exec_in_container()):
        f.fail("in_container_name", "set without IN_CONTAINER_LAUNCH = True",
               "set IN_CONTAINER_LAUNCH = True too, or leave IN_CONTAINER_NAME out to let "
               "chipperf start its own containers")
        return None
    return name


def test_fields(f: Fields, cases: tuple[CaseEntry, ...], suite: str = "training") -> TestConfig:
    vendor = f.get("vendor", as_text, "")
    if not vendor:
        f.fail("vendor", "not set", "set VENDOR to a vendor folder name, e.g. 'cpu' or 'nvidia'")
    return TestConfig(
        vendor=vendor,
        cases=cases,
        image=_image(f),
        shm_size=f.get("shm_size", docker_size, "16g", "write a size such as '16g' or '512m'"),
        container_opt=f.get("container_opt", as_text, ""),
        visible_devices_env=f.get("visible_devices_env", as_text, None),
        clear_caches=f.get("clear_caches", as_flag, False),
        retry_lost_hosts=f.get("retry_lost_hosts", as_flag, False),
        in_container_launch=f.get("in_container_launch", as_flag, _exec_in_container()),
        in_container_name=_in_container_name(f),
        framework_match=f.get("framework_match", as_framework_match, "nearest",
                              f"use one of {', '.join(MODES)}"),
        round_timeout_s=f.get("round_timeout_s", seconds, 3600.0, SECONDS_FIX),
        monitor_interval_s=f.get("monitor_interval_s", seconds, DEFAULT_INTERVAL_S,
                                 SECONDS_FIX),
        result_root=f.get("result_root", non_empty, "result",
                          "give the folder the run dirs go in, e.g. 'result'"),
        training_dir=f.get("training_dir", as_text, None),
        log_level=f.get("log_level", as_text, "info"),
        suite=suite,
        measured_peaks=f.get("measured_peaks", as_text, None),
        overrides=f.get("overrides", as_overrides, {}, "write OVERRIDES = {'name': value, ...} "
                        "with literal values"),
        sweeps=read_sweeps(f, cases, suite),
        sweep_deadline_s=f.get("sweep_deadline_s", seconds, None, SECONDS_FIX),
        sweep_round_s=f.get("sweep_round_s", seconds, None, SECONDS_FIX),
    )
