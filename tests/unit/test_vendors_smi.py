"""Vendor SMI parsers on real output of each tool (tests/unit/data/smi/, first line of each
file names where it was published), and on output they must refuse."""

from __future__ import annotations

from pathlib import Path

import pytest

from chipperf_runtime.vendors.ascend import parse_npu_smi_info
from chipperf_runtime.vendors.cambricon import parse_cnmon
from chipperf_runtime.vendors.dcu import parse_concise_table
from chipperf_runtime.vendors.iluvatar import parse_ixsmi
from chipperf_runtime.vendors.intel_gaudi import parse_hl_smi_csv
from chipperf_runtime.vendors.metax import parse_mx_smi

DATA = Path(__file__).parent / "data" / "smi"
MIB = 2**20


def sample(name: str) -> str:
    head, _, body = (DATA / name).read_text().partition("\n")
    assert head.startswith("# source: "), f"{name}: first line must name the source"
    return body


def parsed(parser, name):
    devices, problems = parser(sample(name))
    assert problems == []
    return devices


def test_every_sample_names_its_source():
    files = sorted(DATA.glob("*.txt"))
    assert len(files) >= 10
    for path in files:
        assert path.read_text().startswith("# source: "), path.name


def test_npu_smi_multi_chip_table():
    devices = parsed(parse_npu_smi_info, "npu-smi_info_910.txt")
    assert [d["index"] for d in devices] == [0, 1, 2]  # Phy-IDs
    assert devices[0] == {"index": 0, "power_w": 178.5, "temp_c": 36.0, "util_pct": 0.0,
                          "mem_used_bytes": 3416 * MIB, "mem_total_bytes": 65536 * MIB}
    assert "power_w" not in devices[1]  # '-': the module's power is on its first chip
    assert devices[2]["power_w"] == 186.3


def test_npu_smi_26_banner_is_not_a_device():
    devices = parsed(parse_npu_smi_info, "npu-smi_info_26rc2.txt")
    assert [(d["index"], d.get("power_w"), d["mem_used_bytes"] // MIB) for d in devices] == [
        (0, 162.6, 3419), (1, None, 2874)]


@pytest.mark.parametrize("name, total_mib, powers", [
    ("cnmon_mlu370x8.txt", 23374, [106.0, 106.0]),
    ("cnmon_mlu370x4_v4.txt", 23308, [30.0, 25.0]),
])
def test_cnmon_both_layouts(name, total_mib, powers):
    devices = parsed(parse_cnmon, name)
    assert [d["index"] for d in devices] == [0, 1]
    assert [d["power_w"] for d in devices] == powers
    assert {d["mem_total_bytes"] for d in devices} == {total_mib * MIB}
    assert all(d["util_pct"] == 0.0 and d["mem_used_bytes"] == 0 for d in devices)
    assert devices[0]["temp_c"] == 32.0


def test_mx_smi_device_and_not_the_sliced_table():
    assert parsed(parse_mx_smi, "mx-smi_c500.txt") == [
        {"index": 0, "util_pct": 0.0, "power_w": 48.0, "temp_c": 37.0,
         "mem_used_bytes": 1058 * MIB, "mem_total_bytes": 65536 * MIB}]


def test_ixsmi_seven_gpus():
    devices = parsed(parse_ixsmi, "ixsmi_bi-v100.txt")
    assert [d["index"] for d in devices] == list(range(7))
    assert [d["power_w"] for d in devices] == [54.0, 56.0, 54.0, 56.0, 55.0, 57.0, 55.0]
    assert devices[4]["temp_c"] == 32.0
    assert {d["mem_used_bytes"] for d in devices} == {513 * MIB}


def test_ixsmi_power_sentinel_is_left_out():
    bad, good = parsed(parse_ixsmi, "ixsmi_bi-v100_faulty.txt")[::-1]
    assert good["power_w"] == 55.0
    assert bad["index"] == 5 and "power_w" not in bad and bad["util_pct"] == 100.0


@pytest.mark.parametrize("name, powers", [("rocm-smi_dcu.txt", [38.0, 41.0, 38.0, 39.0]),
                                          ("rocm-smi_dcu_z100.txt", [58.0])])
def test_dcu_concise_table(name, powers):
    devices = parsed(parse_concise_table, name)
    assert [d["power_w"] for d in devices] == powers
    assert set(devices[0]) == {"index", "temp_c", "power_w", "mem_used_pct", "util_pct"}


def test_hl_smi_csv():
    assert parsed(parse_hl_smi_csv, "hl-smi_q_gaudi3.txt") == [
        {"index": 0, "mem_total_bytes": 131072 * MIB, "mem_used_bytes": 672 * MIB,
         "power_w": 226.0, "temp_c": 36.0, "util_pct": 0.0}]


@pytest.mark.parametrize("parser", [parse_npu_smi_info, parse_cnmon, parse_mx_smi, parse_ixsmi,
                                    parse_concise_table, parse_hl_smi_csv])
def test_unexpected_output_is_a_problem_not_an_empty_sample(parser):
    devices, problems = parser("Error: driver not loaded\n")
    assert devices == [] and len(problems) == 1


def test_truncated_rows_are_named():
    text = sample("ixsmi_bi-v100.txt").replace("| 0%   31C   P0    54W / 250W   | 513MiB / 32768MiB",
                                               "| 0%   31C   P0    54W / 250W   | 513MiB")
    devices, problems = parse_ixsmi(text)
    assert len(devices) == 6 and "ixsmi row" in problems[0] and "used / total" in problems[0]
    _, problems = parse_hl_smi_csv("0, uuid, HL-325L, 1.22, 131072 MiB\n")
    assert "5 fields, queried 11" in problems[0]
    _, problems = parse_concise_table(sample("rocm-smi_dcu.txt").replace("0    30.0c  38.0W", "0  30.0c"))
    assert "columns" in problems[0]


def test_xpu_smi_xml_of_eight_p800():
    from chipperf_runtime.vendors.kunlunxin import parse_xpu_smi_xml

    devices = parsed(parse_xpu_smi_xml, "xpu-smi_q_x_p800.txt")
    assert [d["index"] for d in devices] == list(range(8))          # minor_number = /dev/xpuN
    assert devices[0] == {"index": 0, "util_pct": 0.0, "temp_c": 36.0, "power_w": 87.0,
                          "mem_used_bytes": 0, "mem_total_bytes": 98304 * MIB}
    assert [d["power_w"] for d in devices] == [87.0, 84.0, 86.0, 86.0, 84.0, 83.0, 84.0, 85.0]
    assert [d["temp_c"] for d in devices] == [36.0, 37.0, 36.0, 37.0, 33.0, 36.0, 33.0, 36.0]


def test_xpu_smi_xml_leaves_out_what_it_cannot_read():
    """'N/A' and 'Invalid Argument' (as xpu-smi prints them in the sample) are absent, not 0."""
    from chipperf_runtime.vendors.kunlunxin import parse_xpu_smi_xml

    text = sample("xpu-smi_q_x_p800.txt")
    text = text.replace("<power_draw>87.00 W</power_draw>", "<power_draw>N/A</power_draw>", 1)
    text = text.replace("<xpu_util>0 %</xpu_util>", "<xpu_util>Invalid Argument</xpu_util>", 1)
    devices, problems = parse_xpu_smi_xml(text)
    assert problems == [] and len(devices) == 8
    assert "power_w" not in devices[0] and "util_pct" not in devices[0]
    assert devices[0]["temp_c"] == 36.0 and devices[1]["power_w"] == 84.0


@pytest.mark.parametrize("text, expect", [
    ("Intel(R) XPU System Management Interface -- v1.0", "not XML"),
    ("<xpum><device/></xpum>", "root <xpum>, not <xpu_smi_log>: not Kunlunxin's xpu-smi"),
    ("<xpu_smi_log><attached_xpus>0</attached_xpus></xpu_smi_log>", "no device row found"),
    ("<xpu_smi_log><xpu id='00000000:03:00.0'><temperature><xpu_temp>hot</xpu_temp>"
     "</temperature></xpu></xpu_smi_log>", "<xpu id='00000000:03:00.0'>: xpu_temp: no number"),
])
def test_xpu_smi_xml_refuses_other_output(text, expect):
    from chipperf_runtime.vendors.kunlunxin import parse_xpu_smi_xml

    devices, problems = parse_xpu_smi_xml(text)
    assert devices == [] and len(problems) == 1 and expect in problems[0], problems


@pytest.mark.parametrize("name,total_mib,used_mib,temps", [
    ("mthreads-gmi_s4000.txt", 49152, (0, 0), (44.0, 44.0)),
    ("mthreads-gmi_s5000.txt", 81920, (66641, 64889), (52.0, 51.0)),
])
def test_mthreads_gmi_table(name, total_mib, used_mib, temps):
    from chipperf_runtime.vendors.mthreads import parse_mthreads_gmi

    devices = parsed(parse_mthreads_gmi, name)
    assert [d["index"] for d in devices] == [0, 1]
    assert [d["mem_total_bytes"] for d in devices] == [total_mib * MIB] * 2
    assert tuple(d["mem_used_bytes"] for d in devices) == tuple(u * MIB for u in used_mib)
    assert tuple(d["temp_c"] for d in devices) == temps
    assert all(d["util_pct"] == 0.0 and "power_w" not in d for d in devices)  # no power column


def test_mthreads_gmi_unexpected_output_is_named():
    from chipperf_runtime.vendors.mthreads import parse_mthreads_gmi

    assert parse_mthreads_gmi("Error: driver not loaded\n") == (
        [], ["no device row found in mthreads-gmi output"])
    text = sample("mthreads-gmi_s4000.txt").replace("0MiB(49152MiB)", "0MiB", 1)
    devices, problems = parse_mthreads_gmi(text)
    assert len(devices) == 1 and "Mem: expected 'usedMiB(totalMiB)'" in problems[0]
