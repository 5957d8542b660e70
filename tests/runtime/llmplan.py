"""Plan-time checks of the LLM cases' vendor configs, shared by the runtime tests: a catalogue
of one real case with a vendor config of the test's, and every shipped config's problems."""

from __future__ import annotations

import shutil
from collections.abc import Collection
from pathlib import Path

from chipperf.config.model import CaseEntry, CaseKey, ClusterConfig, TestConfig
from chipperf.plan import check
from chipperf.suites.catalogue import Catalogue

REPO = Path(__file__).resolve().parents[2]
BENCHMARKS = REPO / "training" / "benchmarks"


def llm_catalogue(tmp_path: Path, case: str, config_name: str, text: str) -> Catalogue:
    """The real case folder, with one nvidia vendor config of ours."""
    root = tmp_path / "training"
    shutil.copytree(BENCHMARKS / case, root / "benchmarks" / case)
    config_dir = root / "nvidia" / f"{case}-pytorch" / "config"
    config_dir.mkdir(parents=True)
    shutil.copy(REPO / "training" / "nvidia" / f"{case}-pytorch" / "config" / "config_common.py",
                config_dir)
    (config_dir / config_name).write_text(text)
    image = root / "nvidia" / "docker_image" / "pytorch_2.13"
    image.mkdir(parents=True)
    (image / "Dockerfile").write_text("")
    return Catalogue.scan(root)


def chipperf_own(config: Path) -> bool:
    """A vendor config written for chipperf, not one carried from FlagPerf's vendor folders
    (scripts/flagperf_vendor_cases.py; tests/unit/test_flagperf_vendor_sections.py plans
    those, each with the BASE_IMAGE its vendor needs)."""
    return not config.read_text().startswith("# From FlagOpen/FlagPerf")


def shipped_config_problems(models: Collection[str]) -> dict[str, list[str]]:
    """``vendor/model/config file`` -> plan's problems, for every vendor config chipperf
    ships for ``models`` (2 hosts, or the config's node count; one pytorch_2.13 case each)."""
    catalogue = Catalogue.scan(REPO / "training")
    found = {}
    for (vendor, model, family), names in catalogue.vendor_configs.items():
        if model not in models:
            continue
        folder = catalogue.vendor_cases[(vendor, model, family)]
        for name in sorted(n for n in names if chipperf_own(folder / "config" / n)):
            chip, nnodes, nproc = name[len("config_"):-3].rsplit("x", 2)
            key = CaseKey.parse(f"{model}:pytorch_2.13:{chip}:{nnodes}:{nproc}:1")
            hosts = tuple(f"10.0.0.{n + 1}" for n in range(max(2, int(nnodes))))
            cluster = ClusterConfig(hosts=hosts, master_port=29600, work_root="/w")
            test = TestConfig(vendor=vendor, cases=(CaseEntry(key, "/data"),))
            found[f"{vendor}/{model}/{name}"] = check(cluster, test, catalogue)
    return found
