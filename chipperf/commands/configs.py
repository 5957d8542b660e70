"""The configs a command runs: the options that name them, read by the suite's loader, checked
by the plan, every problem at once before any host is touched (``--keep-going``: less the case
keys that cannot run)."""

from __future__ import annotations

import argparse
from pathlib import Path

from chipperf.config import ClusterConfig, TestConfig
from chipperf.config.load import read_config
from chipperf.errors import ConfigError
from chipperf.plan import checked
from chipperf.suites import DEFAULT_SUITE, ConfigFiles, Suite, get_suite, suite_names
from chipperf.suites.catalogue import Catalogue

Configs = tuple[ClusterConfig, TestConfig, Catalogue]


def load_for(args: argparse.Namespace) -> Configs:
    """The configs the command line names (--suite, its config files, --case-root)."""
    files = ConfigFiles(cluster=getattr(args, "cluster", None), test=getattr(args, "test", None),
                        host_config=getattr(args, "host_config", None),
                        case_root=getattr(args, "case_root", None))
    return load_suite(get_suite(args.suite), files, bool(getattr(args, "keep_going", False)))


def load_suite(suite: Suite, files: ConfigFiles, keep_going: bool = False) -> Configs:
    loaded = suite.load(files)
    test = verdict(loaded.problems, loaded.cluster, loaded.test, loaded.catalogue, loaded.where,
                   keep_going)
    return loaded.cluster, test, loaded.catalogue


def load_all(cluster_path: str, test_path: str, training_dir: str | None,
             keep_going: bool = False) -> Configs:
    """The training suite's two configs plus the catalogue checks."""
    return load_suite(get_suite("training"), ConfigFiles(cluster_path, test_path,
                                                         case_root=training_dir), keep_going)


def load_inference_all(host_config: str, suite_dir: str | None, keep_going: bool = False
                       ) -> Configs:
    return load_suite(get_suite("inference"), ConfigFiles(host_config=host_config,
                                                          case_root=suite_dir), keep_going)


def load_spec_suite_all(suite: str, host_config: str, suite_dir: str | None,
                        keep_going: bool = False) -> Configs:
    """base/ or operation/: FlagPerf's <suite>/configs/host.yaml."""
    return load_suite(get_suite(suite), ConfigFiles(host_config=host_config, case_root=suite_dir),
                      keep_going)


def verdict(problems: list[str], cluster: ClusterConfig, test: TestConfig, catalogue: Catalogue,
            where: str, keep_going: bool) -> TestConfig:
    """``test`` if nothing is wrong; with ``keep_going``, less the case keys that have problems
    (each listed, with why, in ``test.skipped``) while at least one can run; else ConfigError
    with every problem."""
    result = checked(cluster, test, catalogue, where=where, names=written_names(where))
    if not keep_going or problems or result.general:
        _raise_all(problems + result.problems)
        return test
    kept, _ = result.skippable(test)
    if test.cases and not kept.cases:
        raise ConfigError(["--keep-going: no case can run, so nothing is left to run:",
                           *result.problems])
    return kept   # the plan's print and the run's log list test.skipped


def written_names(path: str) -> dict[str, str]:
    """A config's keys as the file wrote them (its problems are the loader's to report)."""
    return read_config(Path(path)).written


def _raise_all(problems: list[str]) -> None:
    if problems:
        raise ConfigError(problems)


def add_config_options(q: argparse.ArgumentParser, suite: str | None = None,
                       cluster: str | None = None, test: str | None = None,
                       host_config: str | None = None) -> None:
    """The options that say which configs to run: every suite's (``suite`` None, with
    --suite), or one suite's with defaults (an entry script's: the files beside it)."""
    offered = [get_suite(name) for name in ([suite] if suite else suite_names())]
    if suite is None:
        q.add_argument("--suite", choices=suite_names(), default=DEFAULT_SUITE,
                       help="which suite's configs and cases (default: %(default)s)")
    if any(not one.reads_host_yaml for one in offered):
        q.add_argument("--cluster", metavar="FILE", default=cluster,
                       help="training: cluster config, .py or .yaml: HOSTS, SSH settings, "
                            "ports" + (" (default: %(default)s)" if cluster else ""))
        q.add_argument("--test", metavar="FILE", default=test,
                       help="training: test config, .py or .yaml: VENDOR, CASES, image and "
                            "run settings" + (" (default: %(default)s)" if test else ""))
    if any(one.reads_host_yaml for one in offered):
        q.add_argument("--host-config", metavar="FILE", default=host_config,
                       help="inference, base, operation: host.yaml: HOSTS, VENDOR, CHIP, CASES "
                            "(default: " + (host_config or "<suite>/configs/host.yaml") + ")")
    add_case_root(q)
    if suite is None:
        q.add_argument("--keep-going", action="store_true", help=KEEP_GOING_HELP)


KEEP_GOING_HELP = ("plan and run the case keys that can run, and list each one that cannot, "
                   "with why, on the console and in run.json's \"skipped\" (default: refuse "
                   "the whole plan when any case key has a problem)")


def add_case_root(q: argparse.ArgumentParser) -> None:
    q.add_argument("--case-root", "--training-dir", dest="case_root", metavar="DIR",
                   help="case root: the suite's case catalogue (default: the repo's <suite>/ "
                        "folder; --training-dir is the old name)")
