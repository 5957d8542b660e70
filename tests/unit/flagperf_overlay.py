"""FlagPerf's vendor case configs overlaid on chipperf's training/, as a vendor drops them in,
and planned: the share that plan (docs/flagperf-names.md, "Vendor case configs").

The configs are FlagOpen/FlagPerf@1b5a030's ``training/<vendor>/<model>-<framework>/config/
config_*.py`` for every case chipperf has (kept under tests/unit/data/flagperf/, each with its
source on its first line). Run ``python tests/unit/flagperf_overlay.py`` to print the counts.
"""

from __future__ import annotations

import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

from chipperf.config.model import CaseEntry, CaseKey, ClusterConfig, ImageBuildConfig, TestConfig
from chipperf.plan import check, vendor_config
from chipperf.suites.catalogue import COMMON_CONFIG, Catalogue

REPO = Path(__file__).resolve().parents[2]
DATA = Path(__file__).resolve().parent / "data" / "flagperf"
HOSTS = ("10.1.2.1", "10.1.2.2", "10.1.2.3", "10.1.2.4")


@dataclass(frozen=True)
class Planned:
    key: str
    vendor: str
    config: Path                 # FlagPerf's file, as kept in the test data
    config_problems: tuple[str, ...]   # the vendor config's own (what this overlay measures)
    plan_problems: tuple[str, ...]     # everything check() says (images, chips, ... too)
    notes: tuple[str, ...]


def flagperf_configs(catalogue: Catalogue) -> list[Path]:
    """FlagPerf's per-topology configs kept in the test data for a case chipperf has."""
    found = sorted(DATA.glob("*/*-*/config/config_*x*x*.py"))
    return [p for p in found if _model_family(p) in catalogue.cases and p.name != COMMON_CONFIG]


def overlay(target: Path) -> Catalogue:
    """chipperf's training/ copied to ``target`` with FlagPerf's vendor config folders
    dropped in (a FlagPerf file replaces chipperf's of the same name)."""
    shutil.copytree(REPO / "training", target, symlinks=True)
    for config_dir in sorted(DATA.glob("*/*-*/config")):
        shutil.copytree(config_dir, target / config_dir.relative_to(DATA), dirs_exist_ok=True)
    return Catalogue.scan(target)


def plan_each(catalogue: Catalogue) -> list[Planned]:
    return [_plan_one(catalogue, path) for path in flagperf_configs(catalogue)]


def _plan_one(catalogue: Catalogue, path: Path) -> Planned:
    vendor = path.parent.parent.parent.name
    model, family = _model_family(path)
    chip, nnodes, nproc = path.stem[len("config_"):].rsplit("x", 2)
    folders = sorted(f for v, f in catalogue.images if v == vendor and f.startswith(family))
    key = CaseKey.parse(f"{model}:{folders[-1] if folders else family}:{chip}:{nnodes}:{nproc}:1")
    entry = CaseEntry(key, "/data")
    # BASE_IMAGE: what a vendor without a public image sets (its registry's PyTorch image)
    test = TestConfig(vendor=vendor, cases=(entry,), result_root=str(REPO / "result"),
                      image=ImageBuildConfig(base_image=f"registry.example/{vendor}/pytorch"))
    return Planned(str(key), vendor, path, vendor_config(entry, test, catalogue).problems,
                   tuple(check(ClusterConfig(hosts=HOSTS), test, catalogue)),
                   vendor_config(entry, test, catalogue).notes(path))


def _model_family(path: Path) -> tuple[str, str]:
    model, family = path.parent.parent.name.rsplit("-", 1)
    return model, family


def main(target: Path) -> int:
    planned = plan_each(overlay(target))
    clean = [p for p in planned if not p.config_problems]
    whole = [p for p in planned if not p.plan_problems]
    print(f"FlagPerf vendor case configs for cases chipperf has: {len(planned)}")
    print(f"  vendor config accepted: {len(clean)}/{len(planned)}")
    print(f"  whole plan accepted:    {len(whole)}/{len(planned)}")
    for p in planned:
        for problem in p.config_problems:
            print(f"  {p.vendor} {p.key}: {problem}")
    return 0


if __name__ == "__main__":
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        sys.exit(main(Path(tmp) / "training"))
