"""The training suite: FlagPerf's training/ (cluster_conf + test_conf, a vendor case folder
with one config per chip and topology, cases trained to a target)."""

from __future__ import annotations

from pathlib import Path

from chipperf.config.implementations import torch_native
from chipperf.config.load import parse_cluster, parse_test
from chipperf.config.model import CaseKey
from chipperf.errors import ConfigError
from chipperf.suites.catalogue import ENTRY, scan_training
from chipperf.suites.suite import ConfigFiles, Loaded, Overrides, Suite


def load(files: ConfigFiles, suite: Suite) -> Loaded:
    """Both configs plus the FlagPerf implementation keys run as torch-native cases."""
    if not (files.cluster and files.test):
        raise ConfigError(["command line: --cluster and --test are required for the training suite"])
    cluster, cluster_problems = parse_cluster(files.cluster)
    test, test_problems = parse_test(files.test)
    catalogue = suite.scan(Path(files.case_root or test.training_dir or suite.default_root))
    return Loaded(cluster, torch_native(test, catalogue), cluster_problems + test_problems,
                  catalogue, files.test)


def vendor_folder(root: Path, vendor: str, key: CaseKey, config_name: str) -> str:
    return f"{root}/{vendor}/{key.model}-{key.family}"


SUITE = Suite(
    name="training", entry=ENTRY, scanner=scan_training, loader=load,
    reads_host_yaml=False, vendor_config_per_topology=True, vendor_config_follows_case=False,
    configs_are_python=True, layered_model_configs=False, overrides=Overrides.PYTHON,
    trains=True, infers=False, measures_spec=False, measures_peak=False, spec_in_case_key=False,
    case_noun="model", result_kind="training", vendor_folder=vendor_folder,
    round_figures=("throughput_raw", "train_time_s", "e2e_time_s", "metric_value", "mfu",
                   "mfu_causal", "mfu_measured", "avg_power_w_per_chip", "peak_power_w_per_chip",
                   "avg_power_w_per_node", "energy_j", "work_per_joule",
                   "peak_accel_memory_bytes"))
