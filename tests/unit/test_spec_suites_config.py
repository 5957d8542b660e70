"""base/ and operation/ host.yaml (FlagPerf's forms) -> configs, catalogue and plan."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from chipperf.cli import load_spec_suite_all, main
from chipperf.config.specsuites import load_spec_suite
from chipperf.errors import ConfigError
from chipperf.plan import make_plan
from chipperf.suites.catalogue import Catalogue, default_suite_dir
from chipperf_runtime.bench.peaks import COMPUTE_BOUND_OPERATORS
from chipperf_runtime.vendors import get_vendor, vendor_names

# FlagPerf's base/configs/host.yaml and operation/configs/host.yaml, as they ship
FLAGPERF_BASE = """FLAGPERF_PATH: "/home/FlagPerf/base"
FLAGPERF_LOG_PATH: "result"
VENDOR: "nvidia"
FLAGPERF_LOG_LEVEL: "info"
BENCHMARKS_OR_TOOLKITS: "BENCHMARK"
HOSTS: ["192.168.1.2", "192.168.1.3"]
NPROC_PER_NODE: 8
SSH_PORT: "22"
HOSTS_PORTS: ["2222"]
MASTER_PORT: "29501"
SHM_SIZE: "32G"
ACCE_CONTAINER_OPT: " --gpus all"
PIP_SOURCE: "https://mirror.baidu.com/pypi/simple"
CLEAR_CACHES: True
ACCE_VISIBLE_DEVICE_ENV_NAME: "CUDA_VISIBLE_DEVICES"
CASES:
    "computation-FP32": "pytorch_2.3"
"""
FLAGPERF_OPERATION = FLAGPERF_BASE.replace("/base", "/operation").replace(
    '"computation-FP32": "pytorch_2.3"', '"mm:FP16:312:nativetorch:A100_40_SXM": "ngctorch2403"')


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "host.yaml"
    path.write_text(text)
    return path


def test_flagperf_base_host_yaml_loads(tmp_path: Path) -> None:
    cluster, test, problems = load_spec_suite(_write(tmp_path, FLAGPERF_BASE), "base")
    assert problems == [] and test.suite == "base" and test.vendor == "nvidia"
    (entry,) = test.cases
    assert str(entry.key) == "computation-FP32:pytorch_2.3:nvidia:1:8:1"
    assert cluster.hosts == ("192.168.1.2", "192.168.1.3")


def test_flagperf_operation_host_yaml_loads(tmp_path: Path) -> None:
    _, test, problems = load_spec_suite(_write(tmp_path, FLAGPERF_OPERATION), "operation")
    assert problems == []
    (entry,) = test.cases
    assert str(entry.key) == "mm-FP16-nativetorch:ngctorch2403:A100_40_SXM:1:1:1"
    assert entry.case_args == ("--dtype", "FP16", "--provider", "nativetorch",
                               "--spec_tflops", "312")


@pytest.mark.parametrize("spec,topology", [
    ("computation-BF16", (1, 8)), ("interconnect-P2P_intraserver", (1, 2)),
    ("interconnect-P2P_interserver", (2, 1)), ("interconnect-MPI_intraserver", (1, 8)),
    ("interconnect-MPI_interserver", (2, 8)), ("main_memory-capacity:H100", (1, 8)),
])
def test_spec_topologies(tmp_path: Path, spec: str, topology: tuple[int, int]) -> None:
    text = FLAGPERF_BASE.replace('"computation-FP32"', f'"{spec}"')
    _, test, problems = load_spec_suite(_write(tmp_path, text), "base")
    assert problems == []
    key = test.cases[0].key
    assert (key.nnodes, key.nproc) == topology
    assert key.chip == ("H100" if ":" in spec else "nvidia")


def test_bad_inputs_one_clear_message_each(tmp_path: Path) -> None:
    text = FLAGPERF_BASE.replace('HOSTS: ["192.168.1.2", "192.168.1.3"]', 'HOSTS: ["10.0.0.1"]') \
        .replace('"computation-FP32": "pytorch_2.3"',
                 '"interconnect-MPI_interserver": "pytorch_2.13"\n    "computation-FP42": '
                 '"pytorch_2.13"')
    with pytest.raises(ConfigError) as err:
        load_spec_suite_all("base", str(_write(tmp_path, text)), None)
    text = str(err.value)
    assert "interconnect-MPI_interserver measures between servers and HOSTS lists 1 host" in text
    assert "no case code" in text and "computation-FP42" in text \
        and "computation-FP32:pytorch" in text       # lists the known specs
    bad_op = FLAGPERF_OPERATION.replace("mm:FP16:312", "mm:FP16:lots")
    with pytest.raises(ConfigError, match="spec peak 'lots' is not a number"):
        load_spec_suite_all("operation", str(_write(tmp_path, bad_op)), None)
    assert "has no case folder" not in text  # an unknown spec gets one message, not two
    for wrong, message in (("mm:FP12:312:nativetorch", "dtype 'FP12' is not one the operators "
                            "run in: use one of FP64, FP32, FP16, BF16, INT32, INT16"),
                           ("mm:FP16:312:triton", "provider 'triton' is unknown: use one of "
                            "nativetorch, flaggems")):
        bad = FLAGPERF_OPERATION.replace("mm:FP16:312:nativetorch", wrong)
        with pytest.raises(ConfigError, match=message):
            load_spec_suite_all("operation", str(_write(tmp_path, bad)), None)


@pytest.mark.parametrize("suite", ["base", "operation"])
def test_shipped_host_yaml_plans(suite: str, capsys: pytest.CaptureFixture) -> None:
    cluster, test, catalogue = load_spec_suite_all(
        suite, str(default_suite_dir(suite) / "configs" / "host.yaml"), None)
    plan = make_plan(cluster, test, catalogue, "run1", Path("result"))
    node = plan.cases[0].rounds[0].nodes[0]
    program = catalogue.case_name(test.cases[0].key.model)
    assert f"/code/benchmarks/{program}/pytorch/main.py" in " ".join(node.command)
    assert "code/chipperf_runtime" in {u.target for u in plan.uploads}   # its base/operation helpers
    assert main(["plan", "--suite", suite]) == 0
    assert "main.py" in capsys.readouterr().out


def test_catalogue_holds_every_spec_and_operator() -> None:
    base = Catalogue.scan(default_suite_dir("base"), suite="base")
    assert len(base.cases) == 14 and ("cpu", "computation-FP8", "pytorch") in base.vendor_cases
    operation = Catalogue.scan(default_suite_dir("operation"), suite="operation")
    assert len(operation.cases) >= 25 and operation.case_name("mm-FP16-flaggems") == "mm"


# Vendors whose Dockerfile has no default base image (none is public): BASE_IMAGE is required.
NO_PUBLIC_IMAGE = {"cambricon", "iluvatar", "kunlunxin", "metax"}


def test_the_vendors_without_a_public_image_are_registered_vendors() -> None:
    assert NO_PUBLIC_IMAGE <= set(vendor_names())


@pytest.mark.parametrize("suite", ["base", "operation"])
@pytest.mark.parametrize("vendor", vendor_names())
def test_every_vendor_plans_both_suites_on_its_training_image(tmp_path: Path, suite: str,
                                                               vendor: str) -> None:
    """FlagPerf's host.yaml with each vendor: its vendor config, its training image (the same
    image, linked, not a copy) and its device named in the launch environment."""
    text = FLAGPERF_BASE if suite == "base" else FLAGPERF_OPERATION
    text = text.replace('VENDOR: "nvidia"', f'VENDOR: "{vendor}"').replace(
        'ACCE_CONTAINER_OPT: " --gpus all"', 'ACCE_CONTAINER_OPT: ""')
    refused = get_vendor(vendor).plan_problems("A100_40_SXM", "pytorch", 1, 1)
    if refused:   # a vendor without a PyTorch path says why at plan time (tpu: no torch_xla)
        with pytest.raises(ConfigError, match=re.escape(refused[0])):
            load_spec_suite_all(suite, str(_write(tmp_path, text)), None)
        return
    if get_vendor(vendor).only_engine:   # inference only, through its SDK (zixiao, hexaflake)
        with pytest.raises(ConfigError, match=f"vendor '{vendor}' has no case folder"):
            load_spec_suite_all(suite, str(_write(tmp_path, text)), None)
        return
    if vendor in NO_PUBLIC_IMAGE:
        with pytest.raises(ConfigError, match="names no base image by default .* set BASE_IMAGE"):
            load_spec_suite_all(suite, str(_write(tmp_path, text)), None)
        text += 'BASE_IMAGE: "registry.example.com/vendor/pytorch:2.4"\n'
    cluster, test, catalogue = load_spec_suite_all(suite, str(_write(tmp_path, text)), None)
    case = make_plan(cluster, test, catalogue, "run1", Path("result")).cases[0]
    if vendor != "nvidia":   # nvidia's suite images are their own (operation's adds flag-gems)
        assert case.image_context.resolve() == (
            default_suite_dir("training") / vendor / "docker_image" / case.image_folder).resolve()
    requirements = (case.image_context / "requirements.txt").read_text()
    assert "pyyaml" in requirements.lower()      # the programs read their vendor config with it
    env = case.rounds[0].nodes[0].env
    assert env["CHIPPERF_VENDOR"] == vendor and env["CHIPPERF_DEVICE"] == get_vendor(vendor).device


@pytest.mark.parametrize("suite,key,chip,note", [
    ("base", "computation-FP8", "A100", "chip 'A100_SXM' has no FP8 peak on its spec sheet: "
     "Ampere tensor cores have no FP8"),
    ("base", "computation-FP32", "", "vendor 'nvidia' has no spec sheet for chip 'nvidia' "
     "(sheets: A100, A10040G, A10080G, A100_40_PCIe, A100_40_SXM, A100_PCIe, A100_SXM, A800, "
     "A800_SXM, H100, H100_NVL, H100_PCIe, H100_SXM, H200, H200_NVL, H200_SXM, H800, H800_SXM): "
     "set CHIP"),
    ("base", "main_memory-bandwidth:Z9", "", "no spec sheet for chip 'Z9'"),
    ("base", "computation-BF16", "H100", None),
    ("operation", "mm:FP16:0:nativetorch:A100", "", "the key gives no spec TFLOP/s"),
    ("operation", "mm:FP16:312:nativetorch:A100", "", None),
    ("operation", "softmax:FP16:0:nativetorch:A100_40_SXM", "", None),   # the sheet's GB/s
    ("operation", "softmax:FP16:0:nativetorch:Z9", "", "no spec sheet for chip 'Z9'"),
])
def test_plan_says_when_a_share_of_spec_peak_will_be_absent(
        tmp_path: Path, suite: str, key: str, chip: str, note: str | None) -> None:
    text = FLAGPERF_BASE if suite == "base" else FLAGPERF_OPERATION
    text = text.replace('"computation-FP32": "pytorch_2.3"', f'"{key}": "pytorch_2.13"').replace(
        '"mm:FP16:312:nativetorch:A100_40_SXM": "ngctorch2403"', f'"{key}": "pytorch_2.13"')
    text += f'CHIP: "{chip}"\n' if chip else ""
    cluster, test, catalogue = load_spec_suite_all(suite, str(_write(tmp_path, text)), None)
    notes = [n for n in make_plan(cluster, test, catalogue, "run1", Path("result")).cases[0].notes
             if "spec peak" in n]
    assert notes == [] if note is None else (len(notes) == 1 and note in notes[0]), notes


def test_compute_bound_operators_are_the_table_s_flop_counted_ones(monkeypatch) -> None:
    monkeypatch.syspath_prepend(str(default_suite_dir("operation") / "benchmarks"))
    from chipperf_runtime.operation.table import OPS

    assert COMPUTE_BOUND_OPERATORS == {name for name, op in OPS.items() if op.flops is not None}
