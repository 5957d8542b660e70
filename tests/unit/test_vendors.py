"""Vendor modules: the registry finds them, each names a device kind the device layer
knows, its spec sheets name their source, and its accelerator sampler either reads the
vendor's tool or says why it cannot (the monitor then writes one ``unavailable`` line)."""

from __future__ import annotations

import ast
import json
import stat
import sys
from pathlib import Path

import pytest
from vendorlists import NO_SAMPLER_TOOL, chip_vendors, tool_vendors

from chipperf_runtime.device import DEVICE_KINDS
from chipperf_runtime.monitors import run_monitor
from chipperf_runtime.monitors.records import kind
from chipperf_runtime.vendors import get_vendor, vendor_names
from chipperf_runtime.vendors.base import SampleError, SamplerUnavailable

VENDORS = Path(__file__).parents[2] / "chipperf_runtime" / "vendors"
DATA = Path(__file__).parent / "data" / "smi"


def test_registry_has_every_vendor_module():
    """A vendor is a module of chipperf_runtime/vendors/ (helpers start with _, base is the
    interface); each one's VENDOR carries its module's name."""
    modules = {p.stem for p in VENDORS.glob("*.py")} - {"__init__", "base"}
    assert vendor_names() == sorted(m for m in modules if not m.startswith("_"))
    assert len(vendor_names()) >= 11 and set(NO_SAMPLER_TOOL) <= set(vendor_names())


@pytest.mark.parametrize("name", vendor_names())
def test_device_kind_visible_env_and_plugin(name):
    vendor = get_vendor(name)
    assert vendor.name == name and vendor.device in DEVICE_KINDS
    if name in ("cpu", "tpu"):   # no devices; the TPU runtime takes every chip of its host
        assert vendor.visible_devices_env is None
    elif vendor.only_engine:     # zixiao, hexaflake: the SDK picks its card; FlagPerf names none
        assert vendor.visible_devices_env is None and vendor.device == "cpu"
    else:
        assert vendor.visible_devices_env.endswith("VISIBLE_DEVICES")
    assert vendor.visible_devices(4) == "0,1,2,3"


def test_devices_as_the_issue_names_them():
    expect = {"ascend": "npu", "cambricon": "mlu", "mthreads": "musa", "kunlunxin": "xpu",
              "intel_gaudi": "hpu", "tpu": "tpu", "iluvatar": "cuda", "metax": "cuda",
              "dcu": "cuda", "amd": "cuda"}
    assert {n: get_vendor(n).device for n in expect} == expect
    assert get_vendor("kunlunxin").device_plugin == "torch_xmlir"


@pytest.mark.parametrize("name", chip_vendors())
def test_spec_sheets_name_their_source_and_units(name):
    chips = get_vendor(name).chips
    assert chips
    for chip in chips.values():
        assert chip.source, chip.name
        assert all(1e12 <= v <= 1e16 for v in chip.peak_flops.values()), chip  # FLOP/s, not TFLOPS
        assert chip.memory_bytes is None or chip.memory_bytes > 2**30
        assert chip.memory_bandwidth is None or chip.memory_bandwidth > 1e11  # bytes/s
    if name == "nvidia":
        assert all(c.memory_bandwidth for c in chips.values())


@pytest.mark.parametrize("path", sorted(VENDORS.glob("*.py")), ids=lambda p: p.name)
def test_vendor_modules_import_only_the_standard_library_at_top(path):
    # The monitor sidecar imports them in the case image (standard library + chipperf_runtime).
    tree = ast.parse(path.read_text())
    for node in tree.body:
        names = ([a.name for a in node.names] if isinstance(node, ast.Import) else
                 [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
        for name in names:
            top = name.split(".")[0]
            assert top in sys.stdlib_module_names or top == "chipperf_runtime", name


@pytest.mark.parametrize("name", tool_vendors())
def test_without_the_tool_the_monitor_writes_unavailable(name, tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    with pytest.raises(SamplerUnavailable) as why:
        get_vendor(name).accelerator_sampler()
    assert str(why.value)
    run_monitor(tmp_path, 0.2, 0.5, name)
    lines = [json.loads(x) for x in (tmp_path / f"{name}_monitor.log").read_text().splitlines()]
    assert [kind(r) for r in lines] == ["unavailable", "end"]
    assert lines[0]["unavailable"]


@pytest.mark.parametrize("name, tool, sample", [
    ("ascend", "npu-smi", "npu-smi_info_910.txt"), ("cambricon", "cnmon", "cnmon_mlu370x8.txt"),
    ("metax", "mx-smi", "mx-smi_c500.txt"), ("iluvatar", "ixsmi", "ixsmi_bi-v100.txt"),
    ("dcu", "hy-smi", "rocm-smi_dcu.txt"), ("intel_gaudi", "hl-smi", "hl-smi_q_gaudi3.txt"),
    ("mthreads", "mthreads-gmi", "mthreads-gmi_s4000.txt"),
])
def test_vendor_sampler_through_the_monitor(name, tool, sample, tmp_path, monkeypatch):
    # The vendor's tool replaced by a script printing that tool's real published output.
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    body = (DATA / sample).read_text().partition("\n")[2]
    (tmp_path / "out.txt").write_text(body)
    script = bin_dir / tool
    script.write_text(f"#!/bin/sh\ncat {tmp_path / 'out.txt'}\n")
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("PATH", f"{bin_dir}:/usr/bin:/bin")
    run_monitor(tmp_path, 0.2, 0.7, name)
    lines = [json.loads(x) for x in (tmp_path / f"{name}_monitor.log").read_text().splitlines()]
    samples = [r for r in lines if "devices" in r]
    assert samples and all(r["devices"][0]["index"] == 0 for r in samples)
    (tmp_path / "out.txt").write_text("garbage\n")  # the tool now prints something unexpected
    with pytest.raises(SampleError, match="output"):
        get_vendor(name).accelerator_sampler()
