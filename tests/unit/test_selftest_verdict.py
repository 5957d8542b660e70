"""selftest's verdicts and exit statuses (selftest_verdict), and its own data (selftest_data)."""

from __future__ import annotations

import random
import struct
import zlib

import pytest

from chipperf.commands.selftest_data import SIDE, class_image, png_bytes
from chipperf.commands.selftest_verdict import (
    EXIT_FAILED,
    EXIT_INCOMPLETE,
    EXIT_OK,
    Row,
    exit_status,
    headline,
    host_load,
    judge,
)


@pytest.mark.parametrize("ratio, verdict", [(1.0, "ok"), (0.9, "ok"), (1.1, "ok"),
                                            (0.38, "suspect (harness or load)"),
                                            (1.2, "suspect (harness or load)")])
def test_a_ratio_outside_the_band_is_suspect(ratio: float, verdict: str) -> None:
    row = judge("cpu", Row("base", "computation-BF16", 1.0, "TFLOP/s", 1.0 / ratio, ratio))
    assert row.verdict.startswith(verdict)


def test_a_share_below_the_vendors_band_is_low_and_no_band_judges_nothing() -> None:
    slow = Row("training", "resnet50 throughput", 1317.0, "samples/s", share_of_spec=0.033)
    assert judge("nvidia", slow).verdict.startswith("low: 3.3 % of the spec sheet")
    assert judge("nvidia", Row("base", "main_memory-bandwidth", share_of_spec=0.896)).verdict == "ok"
    assert judge("nvidia", Row("base", "main_memory-bandwidth", share_of_spec=0.5)).verdict.startswith("low")
    assert judge("cpu", slow).verdict == "ok"


def test_the_exit_status_follows_the_verdicts() -> None:
    ok, low = Row("base", "a"), Row("training", "b", verdict="low: 3 %")
    not_run = Row("serving", "serving", verdict="not run: 10 s of the budget left")
    suspect = judge("cpu", Row("base", "c", ratio=0.5))
    assert exit_status([ok, low]) == EXIT_OK
    assert exit_status([ok, not_run]) == EXIT_INCOMPLETE
    assert exit_status([suspect, not_run]) == EXIT_FAILED
    assert exit_status([ok, Row("inference", "d", verdict="failed: timeout")]) == EXIT_FAILED
    assert len({EXIT_OK, EXIT_FAILED, EXIT_INCOMPLETE, 2}) == 4


def test_a_headline_is_the_median_with_its_spread() -> None:
    assert headline([10.0, 12.0, 11.0]) == (11.0, pytest.approx(2 / 11))
    assert headline([5.0]) == (5.0, None)


def test_host_load_is_recorded_with_the_cores() -> None:
    load = host_load()
    assert load["cores"] >= 1 and load["load_1m"] >= 0 and isinstance(load["busy"], bool)


def test_the_selftest_images_are_valid_pngs_of_their_class() -> None:
    pixels = class_image(3, random.Random(0))
    data = png_bytes(SIDE, SIDE, pixels)
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height, depth, colour = struct.unpack(">IIBB", data[16:26])
    assert (width, height, depth, colour) == (SIDE, SIDE, 8, 2)
    length = struct.unpack(">I", data[33:37])[0]
    assert data[37:41] == b"IDAT"
    raw = zlib.decompress(data[41:41 + length])
    rows = [raw[i * (1 + 3 * SIDE):(i + 1) * (1 + 3 * SIDE)] for i in range(SIDE)]
    assert all(r[0] == 0 for r in rows) and b"".join(r[1:] for r in rows) == pixels
    assert class_image(3, random.Random(0)) == pixels != class_image(4, random.Random(0))
