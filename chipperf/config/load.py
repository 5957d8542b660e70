"""Read cluster/test configs from FlagPerf-form ``.py`` (as data, never executed) or ``.yaml``.

Every problem is collected and raised at once as a ``ConfigError`` whose lines read
``where: what is wrong: how to fix``. Keys chipperf does not need are returned as
warnings, not errors, so FlagPerf's own config files load unchanged.
"""

from __future__ import annotations

import dataclasses
import ipaddress
import logging
import os
import re
from pathlib import Path
from typing import Any, Callable, Mapping, NamedTuple

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
}
EXECUTORS = ("ssh", "slurm")
IGNORED = {"flagperf_path", "flagperf_ssh_port", "flagperf_log_file", "hosts_ports"}


ALL = "*"  # in ``RawConfig.broken``: the whole file could not be read


class RawConfig(NamedTuple):
    values: dict[str, Any]     # keys lower-cased, FlagPerf aliases applied
    problems: list[str]        # the file's own problems (syntax, code that needs execution)
    broken: frozenset[str]     # keys whose value could not be read (ALL: the whole file)
    written: dict[str, str] = {}   # key in ``values`` -> the name as the file wrote it


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


class Fields:
    """Typed reads from a config mapping that record problems instead of raising."""

    def __init__(self, path: Path, data: Mapping[str, Any], broken: frozenset[str] = frozenset(),
                 written: Mapping[str, str] | None = None):
        self.path, self.data, self.broken = path, data, broken
        self.written = dict(written or {})
        self.problems: list[str] = []
        self.used: set[str] = set()

    @classmethod
    def of(cls, path: Path, raw: RawConfig) -> "Fields":
        return cls(path, raw.values, raw.broken, raw.written)

    def name(self, key: str) -> str:
        """``key`` as the user wrote it (upper case when not written: a default's name)."""
        return self.written.get(key, key.upper())

    def get(self, key: str, kind: Callable[[Any], Any], default: Any, fix: str = "") -> Any:
        self.used.add(key)
        if key not in self.data or self.data[key] is None:
            return default
        try:
            return kind(self.data[key])
        except (TypeError, ValueError, OverflowError) as exc:
            self.fail(key, f"{shown(self.data[key])} is not valid ({exc})", fix)
            return default

    def fail(self, key: str, what: str, fix: str = "") -> None:
        if key in self.broken or ALL in self.broken:
            return  # the file's reader already said why this value is missing
        self.problems.append(f"{self.path}: {self.name(key)}: {what}" + (f": {fix}" if fix else ""))

    def unused(self) -> list[str]:
        return sorted(k for k in self.data if k not in self.used and not k.startswith("_"))


def shown(value: Any) -> str:
    """``repr(value)``, cut short when long (a 400-digit number is named, not printed; a
    path is kept whole up to 300 characters)."""
    text, most = repr(value), 300 if isinstance(value, str) else 60
    return text if len(text) <= most else f"{text[:most - 20]}... ({len(text)} characters)"


def _overrides(value: Any) -> dict[str, Any]:
    """OVERRIDES: parameter name -> a literal value (number, string, bool, None, list)."""
    if not isinstance(value, Mapping):
        raise TypeError(f"a {type(value).__name__}, not a mapping")
    literal = (bool, int, float, str, type(None), list, tuple)
    bad = [k for k, v in value.items() if not isinstance(k, str) or not isinstance(v, literal)]
    if bad:
        raise ValueError(f"{', '.join(map(str, bad))}: names must be strings and values literals")
    return dict(value)


def _port(value: Any) -> int:
    port = int(str(value).strip())
    if not 0 < port < 65536:
        raise ValueError("outside 1..65535")
    return port


def _text(value: Any) -> str:
    """A setting that is one string (a path, a name, a URL): a list or a number is named as
    the wrong type, not turned into text (str(['a']) is no path)."""
    if isinstance(value, str):
        return value
    raise ValueError(f"a {type(value).__name__}, expected one string")


def _str_tuple(value: Any) -> tuple[str, ...]:
    if isinstance(value, str):
        return tuple(v for v in value.split() if v)
    if isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value):
        return tuple(value)
    raise ValueError("expected a string or a list of strings")


# A host as SSH can reach it: an IP literal, or a name of letters, digits, '-', '_' and dots
# (no spaces or shell metacharacters: host names reach command lines and paths).
_HOST_NAME = re.compile(r"^(?=.{1,253}$)[A-Za-z0-9_](?:[A-Za-z0-9_-]*[A-Za-z0-9_])?"
                        r"(?:\.[A-Za-z0-9_](?:[A-Za-z0-9_-]*[A-Za-z0-9_])?)*\.?$")


def _host_list(value: Any) -> tuple[str, ...]:
    if not isinstance(value, (list, tuple)):
        raise ValueError(f"a {type(value).__name__}, expected a list of host names or addresses")
    for host in value:
        if not isinstance(host, str):
            raise ValueError(f"host {host!r} is a {type(host).__name__}, not a string")
        try:
            ipaddress.ip_address(host)
        except ValueError:
            if not _HOST_NAME.match(host):
                raise ValueError(f"host {host!r} is neither an IP address nor a host name "
                                 "(letters, digits, '-', '_', '.')") from None
    return tuple(value)


def _framework_match(value: Any) -> str:
    if value not in MODES:
        raise ValueError(f"not one of {', '.join(MODES)}")
    return str(value)


def _flag(value: Any) -> bool:
    if isinstance(value, bool):
        return value
    if str(value).lower() in ("1", "true", "yes", "on", "0", "false", "no", "off"):
        return str(value).lower() in ("1", "true", "yes", "on")
    raise ValueError("expected true or false")


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
    executor = f.get("executor", _text, "ssh")
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
        ssh_port=f.get("ssh_port", _port, 22, "use a TCP port number"),
        master_port=f.get("master_port", _port, 29501, "use a free TCP port number"),
        ssh_user=f.get("ssh_user", _text, None),
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
    hosts: tuple[str, ...] = f.get("hosts", _host_list, (),
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
    nodes = f.get("slurm_nodes", _count, 0, "use a whole number >= 1")
    if "slurm_nodes" not in f.data:
        f.fail("slurm_nodes", "not set (EXECUTOR = 'slurm')",
               "set SLURM_NODES to the number of nodes to ask Slurm for (the largest nnodes of the cases)")
    return SlurmConfig(
        nodes=max(nodes, 1),
        partition=f.get("slurm_partition", _text, None),
        account=f.get("slurm_account", _text, None),
        queue_timeout_s=f.get("queue_timeout", seconds, 600.0, SECONDS_FIX),
        extra_args=f.get("slurm_extra_args", _str_tuple, (),
                         "give sbatch options as a list, e.g. ['--qos=bench']"),
    )


def _count(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError("must be a whole number >= 1")
    return value


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
        pip_extra_index_urls=f.get("pip_extra_index_urls", _str_tuple, ()),
        pip_find_links=f.get("pip_find_links", _str_tuple, ()),
        wheelhouse=f.get("wheelhouse", _text, None),
        ca_bundle=f.get("ca_bundle", _text, None),
        http_proxy=f.get("http_proxy", _text, None),
        https_proxy=f.get("https_proxy", _text, None),
        no_proxy=f.get("no_proxy", _text, None),
        debian_mirror=f.get("debian_mirror", _text, "http://deb.debian.org/debian"),
        build_timeout_s=f.get("build_timeout_s", seconds, 3600.0, SECONDS_FIX),
        pip_from_master=f.get("pip_from_master", _flag, True),
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


def test_fields(f: Fields, cases: tuple[CaseEntry, ...], suite: str = "training") -> TestConfig:
    vendor = f.get("vendor", _text, "")
    if not vendor:
        f.fail("vendor", "not set", "set VENDOR to a vendor folder name, e.g. 'cpu' or 'nvidia'")
    return TestConfig(
        vendor=vendor,
        cases=cases,
        image=_image(f),
        shm_size=f.get("shm_size", docker_size, "16g", "write a size such as '16g' or '512m'"),
        container_opt=f.get("container_opt", _text, ""),
        visible_devices_env=f.get("visible_devices_env", _text, None),
        clear_caches=f.get("clear_caches", _flag, False),
        retry_lost_hosts=f.get("retry_lost_hosts", _flag, False),
        in_container_launch=f.get("in_container_launch", _flag, _exec_in_container()),
        framework_match=f.get("framework_match", _framework_match, "nearest",
                              f"use one of {', '.join(MODES)}"),
        round_timeout_s=f.get("round_timeout_s", seconds, 3600.0, SECONDS_FIX),
        monitor_interval_s=f.get("monitor_interval_s", seconds, DEFAULT_INTERVAL_S,
                                 SECONDS_FIX),
        result_root=f.get("result_root", non_empty, "result",
                          "give the folder the run dirs go in, e.g. 'result'"),
        training_dir=f.get("training_dir", _text, None),
        log_level=f.get("log_level", _text, "info"),
        suite=suite,
        measured_peaks=f.get("measured_peaks", _text, None),
        overrides=f.get("overrides", _overrides, {}, "write OVERRIDES = {'name': value, ...} "
                        "with literal values"),
    )
