"""selftest's verdicts and exit statuses (selftest_verdict), and its own data (selftest_data)."""

from __future__ import annotations

import random
import struct
import sys
import zlib
from pathlib import Path

import pytest
import yaml

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


def test_rounds_that_disagree_make_a_row_suspect() -> None:
    """A fresh Debian 12's selftest: resnet50's rounds gave 234, 34 and 33 samples/s as other
    work started on the host; its median (34) was 'ok' with ±296 % beside it."""
    value, spread = headline([234.3, 34.0, 32.8])
    moved = judge("cpu", Row("training", "resnet50 throughput", value, "samples/s", spread=spread))
    assert moved.verdict.startswith("suspect (rounds disagree): ±296.3 % between its counted")
    steady = judge("cpu", Row("training", "resnet50 throughput", 34.0, "samples/s", spread=0.2))
    assert steady.verdict == "ok"
    assert exit_status([steady, moved]) == 1


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


def test_an_accelerator_vendor_runs_the_shipped_gpu_steps(tmp_path: Path, monkeypatch) -> None:
    """nvidia H100 with a stand-in for `chipperf run` (no GPU here): the steps after the four
    common ones are gpt2-medium and llama3_8B on their H100x1x1 configs in performance mode and
    the llama3_8b serving point with nothing capped; the cpu vendor has none of them."""
    from chipperf.commands import selftest, selftest_accel

    for module in (selftest, selftest_accel):      # each imports the data maker by name
        monkeypatch.setattr(module, "prepared", lambda test, step: tmp_path / "data" / step)
    monkeypatch.setattr(selftest_accel, "token_data", lambda test, step: tmp_path / "data" / step)
    monkeypatch.setattr(selftest, "device_facts", lambda test: {"device": "stand-in"})
    asked: list[dict] = []
    stores: list[str] = []
    monkeypatch.delenv("RESULTS_DB", raising=False)

    def run(argv: list[str]) -> int:
        config = Path(argv[argv.index("--test" if "--test" in argv else "--host-config") + 1])
        asked.append(yaml.safe_load(config.read_text()))
        stores.append(argv[argv.index("--db") + 1])
        return 1

    status = selftest.run_selftest("nvidia", "H100", 2000, tmp_path / "result", tmp_path / "data",
                                   run, out=lambda line: None)
    assert status == EXIT_FAILED
    keys = [next(iter(a["CASES"])) for a in asked]
    assert keys[-3:] == ["gpt2:pytorch_2.13:H100:1:1:3", "llama3_8B:pytorch_2.13:H100:1:1:3",
                         "llama3_8b:pytorch_2.13:H100:1:1:3"]
    assert asked[-3]["OVERRIDES"]["run_mode"] == asked[-2]["OVERRIDES"]["run_mode"] == "performance"
    assert asked[-1]["OVERRIDES"] == {}            # the shipped serving config, nothing capped
    assert selftest_accel.accel_steps("cpu") == {}
    # one store for the result root, every step's run into it (not one beside each step)
    assert set(stores) == {f"sqlite:///{tmp_path / 'result' / 'chipperf-results.sqlite'}"}


def test_the_hbm_floor_is_weight_bytes_over_the_measured_bandwidth() -> None:
    from chipperf.commands.selftest_accel import floor_row

    shape = {"hidden_size": 4096, "num_layers": 32, "num_heads": 32, "num_kv_heads": 8,
             "intermediate_size": 14336, "vocab_size": 128256, "precision": "bf16"}
    rows = [Row("base", "main_memory-bandwidth", 3000.0, "GB/s"),
            Row("serving32", "llama3_8b single_stream TPOT p50", 6.0, "ms")]
    row = floor_row("nvidia", shape, rows)
    floor_ms = 8_030_261_248 * 2 / 3000e9 * 1e3      # Llama-3-8B's parameters, bf16
    assert row.value == pytest.approx(6.0 / floor_ms)
    assert row.verdict.startswith("ok (floor 5.35 ms")
    assert floor_row("nvidia", shape, [rows[0], Row("serving32", "x single_stream TPOT p50", 9.0)]
                     ).verdict.startswith("low: TPOT 1.68 x its floor")
    assert floor_row("nvidia", shape, rows[1:]).verdict.startswith("failed: not measured")


def test_what_the_python_lacks_is_named_with_its_fix(monkeypatch) -> None:
    import importlib.util

    from chipperf.commands.selftest import missing_modules

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name in ("tokenizers", "torchvision") else real(name, *a))
    problems = missing_modules()
    assert len(problems) == 2
    assert "no tokenizers: install the selftest extra: pip install -e '" in problems[0]
    assert "no torchvision beside torch 2.13" in problems[1]
    assert "pip install 'torchvision==0.28.*'" in problems[1]


def test_the_preflight_checks_every_package_of_the_selftest_extra() -> None:
    """What the preflight asks for is pyproject's selftest extra, package for package: a package
    the steps need and the extra lacks (transformers, found missing by the serving step after
    the quickstart in a fresh Debian 12) is added to both."""
    import ast
    import re

    from chipperf.commands.selftest import EXTRA

    pyproject = (Path(__file__).resolve().parents[2] / "pyproject.toml").read_text()
    line = re.search(r"^selftest = (\[.*\])$", pyproject, re.M)
    assert line, "pyproject.toml: no one-line selftest extra"
    extra = ast.literal_eval(line.group(1))
    assert sorted(EXTRA.values()) == sorted(re.split(r"[=<>\[ ]", p)[0] for p in extra)


def test_a_python_without_torch_is_told_how_to_add_the_cpu_vendors(monkeypatch) -> None:
    """The quickstart's .venv has no torch (its cases run in the image): the cpu vendor's fix
    is the CPU build of the pair its image pins."""
    import importlib.util

    from chipperf.commands.selftest import missing_modules

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "torch" else real(name, *a))
    assert missing_modules("cpu") == [
        f"{sys.executable}: no torch: install the vendor's torch (and its torchvision) into this "
        f"python first: pip install torch==2.13.0 torchvision==0.28.0 (where pip finds no CPU build "
        f"of them, add --index-url https://download.pytorch.org/whl/cpu)"]
    assert missing_modules("nvidia")[0].endswith("into this python first")
