"""The case catalogue, found by folder convention under a suite root (``training/``).

    benchmarks/<model>/<family>/run_pretraining.py      standard case code
    benchmarks/driver/                                   shared case driver (uploaded with every case)
    <vendor>/<model>-<family>/config/config_<chip>x<nnodes>x<nproc>.py   vendor case
    <vendor>/docker_image/<framework>/Dockerfile         vendor image per framework

``Catalogue.scan`` reads the tree once; planning then uses only this frozen view.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping

ENTRY = "run_pretraining.py"
SHARED_DIRS = ("driver",)


def default_training_dir() -> Path:
    return Path(__file__).resolve().parent.parent / "training"


@dataclass(frozen=True)
class Catalogue:
    root: Path
    # (model, family) -> standard case dir (holds ENTRY)
    cases: Mapping[tuple[str, str], Path] = field(default_factory=dict)
    # (vendor, model, family) -> vendor case dir
    vendor_cases: Mapping[tuple[str, str, str], Path] = field(default_factory=dict)
    # (vendor, model, family) -> names of the config_*.py files
    vendor_configs: Mapping[tuple[str, str, str], frozenset[str]] = field(default_factory=dict)
    # (vendor, framework) -> image build context dir (holds Dockerfile)
    images: Mapping[tuple[str, str], Path] = field(default_factory=dict)
    shared: tuple[Path, ...] = ()

    @classmethod
    def scan(cls, root: Path) -> "Catalogue":
        root = Path(root).resolve()
        bench = root / "benchmarks"
        cases = {(p.parent.parent.name, p.parent.name): p.parent
                 for p in sorted(bench.glob(f"*/*/{ENTRY}"))}
        vendor_cases, vendor_configs, images = {}, {}, {}
        for vendor_dir in sorted(p for p in root.iterdir() if p.is_dir()) if root.is_dir() else []:
            if vendor_dir.name in ("benchmarks", "run_benchmarks") or vendor_dir.name.startswith("."):
                continue
            for case_dir in sorted(p for p in vendor_dir.iterdir() if p.is_dir() and "-" in p.name):
                model, family = case_dir.name.rsplit("-", 1)
                key = (vendor_dir.name, model, family)
                vendor_cases[key] = case_dir
                vendor_configs[key] = frozenset(p.name for p in (case_dir / "config").glob("config_*.py"))
            for dockerfile in sorted((vendor_dir / "docker_image").glob("*/Dockerfile")):
                images[(vendor_dir.name, dockerfile.parent.name)] = dockerfile.parent
        shared = tuple(bench / d for d in SHARED_DIRS if (bench / d).is_dir())
        return cls(root, cases, vendor_cases, vendor_configs, images, shared)

    def vendors(self) -> list[str]:
        return sorted({v for v, _, _ in self.vendor_cases} | {v for v, _ in self.images})
