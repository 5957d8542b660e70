"""Planning the repository's own training folders in a unit test: the catalogue scanned once,
one master host, and a test config of one case key."""

from __future__ import annotations

import functools
from pathlib import Path

from chipperf.config.model import CaseEntry, CaseKey, ClusterConfig, TestConfig
from chipperf.suites.catalogue import Catalogue

REPO = Path(__file__).resolve().parents[2]
CLUSTER = ClusterConfig(hosts=("10.0.0.1",))


@functools.cache
def shipped_catalogue() -> Catalogue:
    return Catalogue.scan(REPO / "training")


def one_case(vendor: str, key: str, tmp_path: Path, data_dir: str = "/data/digits") -> TestConfig:
    """VENDOR's test config running case KEY on DATA_DIR, results under TMP_PATH/result."""
    return TestConfig(vendor=vendor, cases=(CaseEntry(CaseKey.parse(key), data_dir),),
                      result_root=str(tmp_path / "result"))
