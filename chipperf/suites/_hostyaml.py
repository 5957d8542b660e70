"""What the suites configured by one ``<suite>/configs/host.yaml`` (inference, base,
operation) share: where that file and the case root are unless the command line says."""

from __future__ import annotations

from pathlib import Path

from chipperf.config.model import CaseKey
from chipperf.config.specsuites import load_spec_suite
from chipperf.suites.suite import ConfigFiles, Loaded, Suite


def host_yaml(files: ConfigFiles, suite: Suite) -> str:
    """--host-config, else the repository's <suite>/configs/host.yaml."""
    return files.host_config or str(suite.default_root / "configs" / "host.yaml")


def case_root(files: ConfigFiles, suite: Suite) -> Path:
    """--case-root, else the repository's <suite>/ folder."""
    return Path(files.case_root or suite.default_root)


def load_spec_host_yaml(files: ConfigFiles, suite: Suite) -> Loaded:
    """base/ or operation/: FlagPerf's <suite>/configs/host.yaml."""
    path = host_yaml(files, suite)
    cluster, test, problems = load_spec_suite(path, suite.name)
    return Loaded(cluster, test, problems, suite.scan(case_root(files, suite)), path)


def spec_vendor_folder(root: Path, vendor: str, key: CaseKey, config_name: str) -> str:
    """One vendor file serves every spec or operator of the suite."""
    return f"{root}/configs/vendor_config/{config_name}"
