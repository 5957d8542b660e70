"""Whose chip a case key names (chipperf.plan.chipowner): FlagPerf's test_conf lists MetaX's
C500 under dcu, also as its paddle layout names (``TP1PP1SH2SP8C50080G``), and NVIDIA's A100
under metax; those keys get one line naming the chip's vendor instead of "no case folder"."""

from __future__ import annotations

from chipperf.config.model import CaseKey
from chipperf.plan.chipowner import chip_owners, foreign_chip_problem


def test_a_chip_is_found_on_its_vendor_s_sheet_with_flagperf_s_suffixes() -> None:
    assert chip_owners("C500") == {"metax": "C500"}
    assert chip_owners("TP1PP1SH2SP8C50080G") == {"metax": "C500"}
    assert chip_owners("A100_40_SXM") == {"nvidia": "A100_40_SXM"}
    assert chip_owners("A100_80_PCIe") == {"nvidia": "A100"}
    assert chip_owners("S4000") == {"mthreads": "S4000"}
    assert chip_owners("Z100L") == {}        # on no sheet: no vendor is named


def test_a_key_naming_another_vendor_s_chip_says_whose_it_is() -> None:
    key = CaseKey.parse("gpt3_13B:paddle_2.6.0:TP2PP1SH2SP4C50040G:1:8:1")
    problem = foreign_chip_problem(key, "dcu", "test_conf: CASES[k]")
    assert problem is not None and problem.startswith(
        "test_conf: CASES[k]: vendor 'dcu' has no chip 'C500' (the key's 'TP2PP1SH2SP4C50040G'): "
        "chipperf's spec sheets give it to vendor 'metax' (chipperf_runtime/vendors/metax.py)")
    assert problem.endswith("run it with VENDOR = 'metax', or name a dcu chip (K100)")
    assert foreign_chip_problem(CaseKey.parse("glm:pytorch:C500:1:8:1"), "metax", "w") is None
    assert foreign_chip_problem(CaseKey.parse("glm:pytorch:Z100L:1:4:1"), "dcu", "w") is None
