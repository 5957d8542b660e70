"""Vendor configs as a common file plus per-topology files: each folder's config_common.py is
its own, however the folder is named (the case reads them; chipperf plan reads them as data)."""

from __future__ import annotations

import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "training" / "benchmarks"))

from chipperf_runtime.training.driver.config import read_python  # noqa: E402


def test_two_folders_with_a_common_file_each_read_their_own(tmp_path, monkeypatch) -> None:
    for vendor, batch in (("a", 64), ("b", 128)):
        folder = tmp_path / vendor / "config"
        folder.mkdir(parents=True)
        (folder / "config_common.py").write_text(f"global_batch_size = {batch}\nmax_steps = 10\n")
        (folder / "config_Xx1x1.py").write_text("from config_common import *\nmax_steps = 20\n")
    monkeypatch.chdir(tmp_path)  # relative folders, as a user may give them
    assert read_python(Path("a/config/config_Xx1x1.py")) == {"global_batch_size": 64,
                                                              "max_steps": 20}
    assert read_python(Path("b/config/config_Xx1x1.py")) == {"global_batch_size": 128,
                                                              "max_steps": 20}
