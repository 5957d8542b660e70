"""The operation suite: FlagPerf's operation/ (one operator, dtype and provider per case key,
which also carries the spec figure; one value per case against it)."""

from __future__ import annotations

from chipperf.suites._hostyaml import load_spec_host_yaml, spec_vendor_folder
from chipperf.suites.catalogue import SPEC_ENTRY, scan_specs
from chipperf.suites.suite import Overrides, Suite


def operator_folder(model: str) -> str:
    """A key's model is <op>-<DTYPE>-<provider>; the case folder is the operator's."""
    return model.split("-", 1)[0]


SUITE = Suite(
    name="operation", entry=SPEC_ENTRY, scanner=scan_specs, loader=load_spec_host_yaml,
    reads_host_yaml=True, vendor_config_per_topology=False, vendor_config_follows_case=True,
    configs_are_python=False, layered_model_configs=False, overrides=Overrides.NONE,
    trains=False, infers=False, measures_spec=True, measures_peak=False, spec_in_case_key=True,
    case_noun="operator", result_kind="spec", vendor_folder=spec_vendor_folder,
    round_figures=("metric_value", "share_of_peak", "latency_p50_ms", "latency_p90_ms",
                   "latency_p99_ms", "train_time_s", "avg_power_w_per_chip",
                   "avg_power_w_per_node", "energy_j"),
    case_of_model=operator_folder)
