"""The inference suite: FlagPerf's inference/ (one host.yaml, a case's configuration.yaml
layered under its vendor's file, items served with latency percentiles)."""

from __future__ import annotations

from pathlib import Path

from chipperf.config.inference import load_inference
from chipperf.config.model import CaseKey
from chipperf.suites._hostyaml import case_root, host_yaml
from chipperf.suites.catalogue import FLAGPERF_VENDOR_SUFFIX, INFERENCE_ENTRY, scan_inference
from chipperf.suites.suite import ConfigFiles, Loaded, Overrides, Suite


def load(files: ConfigFiles, suite: Suite) -> Loaded:
    path, root = host_yaml(files, suite), case_root(files, suite)
    cluster, test, problems = load_inference(path, root)
    return Loaded(cluster, test, problems, suite.scan(root), path)


def vendor_folder(root: Path, vendor: str, key: CaseKey, config_name: str) -> str:
    return (f"{root}/configs/{key.model}/vendor_config/{config_name} (or FlagPerf's "
            f"{vendor}{FLAGPERF_VENDOR_SUFFIX})")


SUITE = Suite(
    name="inference", entry=INFERENCE_ENTRY, scanner=scan_inference, loader=load,
    reads_host_yaml=True, vendor_config_per_topology=False, vendor_config_follows_case=True,
    configs_are_python=False, layered_model_configs=True, overrides=Overrides.YAML,
    trains=False, infers=True, measures_spec=False, measures_peak=False, spec_in_case_key=False,
    case_noun="model", result_kind="inference", vendor_folder=vendor_folder,
    round_figures=("throughput_raw", "throughput_pure_compute", "latency_p50_ms",
                   "latency_p90_ms", "latency_p99_ms", "train_time_s", "metric_value",
                   "reference_max_abs_diff", "mfu", "avg_power_w_per_chip", "energy_per_item_j",
                   "peak_memory_bytes"))
