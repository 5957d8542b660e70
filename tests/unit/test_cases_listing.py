"""`chipperf cases` as a person reads it in a terminal."""

from __future__ import annotations

from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def test_chipperf_cases_fits_110_columns_in_every_suite(capsys) -> None:
    """`chipperf cases`: vendors and notes wrapped, sizes with their unit, no column of '?'."""
    from chipperf.commands.cases import print_cases

    for suite in ("training", "inference", "base", "operation"):
        assert print_cases(REPO / suite, suite=suite) == 0
        out = capsys.readouterr().out
        assert max(len(line) for line in out.splitlines()) <= 110, suite
        assert " ? " not in out and "FLOPs/unit" not in out
        if suite == "training":
            assert "/ sample" in out and "/ token" in out


def test_chipperf_cases_says_which_vendor_images_cannot_be_built(capsys) -> None:
    """Each vendor image folder with what it builds on: the cpu images here, offline; a vendor
    with a published image where that can be pulled; a vendor without one not at all until
    BASE_IMAGE names it."""
    from chipperf.commands.cases import print_cases

    assert print_cases(REPO / "training") == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "cpu/pytorch_2.13: builds here, offline, on the local Debian base" in out
    assert "mthreads/pytorch_2.13: builds on a host that can pull harbor.baai.ac.cn/" in out
    for folder in ("kunlunxin/paddle", "iluvatar/deepspeed", "metax/pytorch_2.13"):
        assert f"{folder}: cannot be built here or anywhere as it is: the vendor publishes no " \
               "image to build on; set BASE_IMAGE" in out
    assert "nvidia/jax_0.10: builds on a host that can pull nvidia/cuda:12.5.1-base-ubuntu22.04 " \
           "(a published image; the Dockerfile's comment says what else it fetches); NEVER " \
           "BUILT by chipperf: no GPU on its machines" in out
    assert "tpu/jax_0.10: builds here, offline, on the local Debian base " \
           "(chipperf.local/debian:bookworm); NEVER BUILT by chipperf: no TPU on its machines" in out
    assert "cpu/jax_0.10: builds here, offline, on the local Debian base " \
           "(chipperf.local/debian:bookworm) " in out          # built here: no such note


def test_chipperf_cases_says_which_chip_has_no_spec_sheet_and_what_never_ran() -> None:
    """Per vendor and chip: dcu's Z100L (FlagPerf's glm and detr configs) has no sheet; a chip
    with one does not say so; mthreads' DeepSpeed image was never built."""
    from chipperf.commands.cases import catalogue_rows, image_lines
    from chipperf.suites.catalogue import Catalogue

    rows = {(r["model"], r["framework"]): r["hardware"] for r in catalogue_rows(REPO / "training")}
    z100l, k100 = rows[("glm", "pytorch")]["dcu/Z100L"], rows[("glm", "pytorch")]["dcu/K100"]
    assert z100l["ran"] is False and k100["ran"] is False
    assert z100l["note"].endswith("; chipperf_runtime/vendors/dcu.py has no spec sheet for Z100L")
    assert "spec sheet for" not in k100["note"]
    (line,) = [x for x in image_lines(Catalogue.scan(REPO / "training"))
               if x.startswith("mthreads/deepspeed: ")]
    assert "set BASE_IMAGE" in line and "NEVER BUILT by chipperf" in line
