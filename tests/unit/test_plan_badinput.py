"""Bad input found at plan time (issue 27): nproc above the chips a node holds, where the
vendor's spec sheet says how many."""

from __future__ import annotations

from pathlib import Path

import pytest

from chipperf.config.model import CaseEntry, CaseKey, ClusterConfig, TestConfig
from chipperf.plan import check
from chipperf.suites.catalogue import Catalogue
from chipperf_runtime.vendors import get_vendor, vendor_names


def catalogue(tmp_path: Path, vendor: str, chip: str, nproc: int) -> Catalogue:
    root = tmp_path / "training"
    for rel in ("benchmarks/resnet50/pytorch/run_pretraining.py", "benchmarks/driver/__init__.py",
                f"{vendor}/resnet50-pytorch/config/config_{chip}x1x{nproc}.py",
                f"{vendor}/docker_image/pytorch_2.13/Dockerfile"):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text("")
    return Catalogue.scan(root)


def problems(tmp_path: Path, vendor: str, chip: str, nproc: int) -> list[str]:
    key = CaseKey.parse(f"resnet50:pytorch_2.13:{chip}:1:{nproc}:1")
    test = TestConfig(vendor=vendor, cases=(CaseEntry(key, "/d"),),
                      result_root=str(tmp_path / "result"))
    return check(ClusterConfig(hosts=("10.0.0.1",)), test, catalogue(tmp_path, vendor, chip, nproc),
                 where="test_conf.py")


@pytest.mark.parametrize("chip", ["A100", "H100", "H200"])
def test_nproc_above_the_chips_of_a_node_is_refused(tmp_path, chip) -> None:
    assert problems(tmp_path, "nvidia", chip, 16) == [
        f"test_conf.py: CASES['resnet50:pytorch_2.13:{chip}:1:16:1']: nproc=16 but a nvidia "
        f"{chip} node holds at most 8 chips (one rank per chip): use nproc <= 8, and more "
        "nodes (nnodes) for more chips"]


def test_nproc_within_a_node_passes(tmp_path) -> None:
    assert problems(tmp_path, "nvidia", "A100", 8) == []


def test_a_chip_whose_node_size_is_unknown_is_not_checked(tmp_path) -> None:
    """cpu's chips are labels for whatever CPU a host has: no count, nothing refused."""
    assert get_vendor("cpu").chip("xeon") is None or \
        get_vendor("cpu").chip("xeon").devices_per_node is None   # type: ignore[union-attr]
    assert problems(tmp_path, "cpu", "xeon", 16) == []


def test_where_the_node_size_is_known() -> None:
    """Which chips plan checks nproc for: the NVIDIA HGX/DGX ones (8 per node); every other
    chip's count is not in chipperf's spec sheets (None), so nproc is not checked there."""
    known = {(v, name): c.devices_per_node for v in vendor_names()
             for name, c in get_vendor(v).chips.items() if c.devices_per_node is not None}
    assert known == {("nvidia", n): 8 for n in ("A100", "A100_SXM", "A100_40_SXM", "H100",
                                                "H100_SXM", "H200", "H200_SXM", "A800",
                                                "A800_SXM", "H800", "H800_SXM",
                                                "A10040G", "A10080G")}   # FlagPerf's paddle names
    assert get_vendor("nvidia").chip("H100_PCIe").devices_per_node is None   # servers vary
