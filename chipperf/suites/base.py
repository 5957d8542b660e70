"""The base suite: FlagPerf's base/ (the chip's own peaks: GEMM per dtype, memory,
interconnect; one value per spec against its spec sheet), by chipperf's PyTorch program or by the vendor's
own toolkit (base/toolkits/<spec>/<vendor>/main.sh, FlagPerf's TOOLKIT method)."""

from __future__ import annotations

from chipperf.suites._hostyaml import load_spec_host_yaml, spec_vendor_folder
from chipperf.suites.catalogue import SPEC_ENTRY, scan_specs
from chipperf.suites.suite import Overrides, Suite
from chipperf_runtime.base.methods import spec_of

SUITE = Suite(
    name="base", entry=SPEC_ENTRY, scanner=scan_specs, loader=load_spec_host_yaml,
    reads_host_yaml=True, vendor_config_per_topology=False, vendor_config_follows_case=True,
    configs_are_python=False, layered_model_configs=False, overrides=Overrides.NONE,
    trains=False, infers=False, measures_spec=True, measures_peak=True, spec_in_case_key=False,
    case_noun="spec", result_kind="spec", vendor_folder=spec_vendor_folder,
    round_figures=("metric_value", "share_of_peak", "bare_ratio", "numpy_ratio", "train_time_s",
                   "e2e_time_s", "avg_power_w_per_chip", "avg_power_w_per_node", "energy_j",
                   "cpu_energy_j"),
    case_of_model=spec_of)     # a toolkit key's model <spec>-toolkit runs the spec's entry
