"""Every vendor config of every training case layers onto its case's base config: it sets only
parameters vendors may change (nvidia's and the other accelerator vendors' configs never run in
CI, so this is their check). The plan-side reader (chipperf.config, read as data) and the
case-side loader (driver.config, run as Python) agree on every value, ``from config_common
import *`` included."""

from __future__ import annotations

import math
import re
import sys
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[2]
TRAINING = REPO / "training"
sys.path[:0] = [p for p in (str(REPO), str(TRAINING / "benchmarks")) if p not in sys.path]

from chipperf.config.vendorconfig import check_vendor_config  # noqa: E402
from chipperf_runtime.training.driver import load_case_config  # noqa: E402
from chipperf_runtime.training.driver.config import VENDOR  # noqa: E402
from chipperf_runtime.vendors import get_vendor, hardware_status, vendor_names  # noqa: E402

# chipperf's own vendor configs; those carried from FlagPerf's vendor folders (first line
# "# From FlagOpen/FlagPerf...") keep FlagPerf's names, which the plan translates before the
# case reads them (test_flagperf_vendor_sections.py plans each)
VENDOR_CONFIGS = sorted(p for p in TRAINING.glob("*/*-*/config/config_*x*x*.py")
                        if not p.read_text().startswith("# From FlagOpen/FlagPerf"))


def case_config_dir(vendor_config: Path) -> Path:
    model, family = vendor_config.parent.parent.name.split("-", 1)
    return TRAINING / "benchmarks" / model / family / "config"


def test_every_case_has_cpu_and_nvidia_configs_for_the_required_topologies() -> None:
    cases = sorted((p.parent.parent.name, p.parent.name)
                   for p in TRAINING.glob("benchmarks/*/*/run_pretraining.py"))
    assert len(cases) >= 5
    required = {"cpu": ["config_xeonx1x1.py"],
                "nvidia": [f"config_{chip}x{topology}.py" for chip in ("A100", "H100")
                           for topology in ("1x1", "1x8", "2x8")]}
    missing = [f"training/{vendor}/{model}-{family}/config/{name}"
               for model, family in cases for vendor, names in required.items() for name in names
               if not (TRAINING / vendor / f"{model}-{family}" / "config" / name).is_file()
               and not too_large_for(model, family, vendor, name)
               and has_image_of(vendor, family)]
    assert missing == []


def has_image_of(vendor: str, family: str) -> bool:
    """Whether the vendor has an image folder of the case's framework family: a vendor without
    one (nvidia has no JAX image) ships no config, and the plan says what is missing."""
    from chipperf.frameworks import family as family_of

    return any(family_of(folder.name) == family
               for folder in (TRAINING / vendor / "docker_image").iterdir())


def too_large_for(model: str, family: str, vendor: str, name: str) -> bool:
    """A topology whose chips cannot hold the full-size model's training state (case.yaml's
    memory needs): plan time would refuse it, so the case ships no config for it."""
    from chipperf.config.caseneeds import needs_problems
    from chipperf.suites.catalogue import read_case_meta

    memory = read_case_meta(TRAINING / "benchmarks" / model / family).get("memory")
    if not memory:
        return False
    chip, nnodes, nproc = name[len("config_"):-3].rsplit("x", 2)
    full = max(memory["params"], key=memory["params"].get)
    return bool(needs_problems({"memory": memory}, {memory["size_knob"]: full}, int(nnodes),
                               int(nproc), get_vendor(vendor).chip(chip), name))


@pytest.mark.parametrize("vendor_config", VENDOR_CONFIGS,
                         ids=[str(p.relative_to(TRAINING)) for p in VENDOR_CONFIGS])
def test_vendor_config_layers_onto_the_case_base(vendor_config: Path) -> None:
    config = load_case_config(case_config_dir(vendor_config), vendor_config)
    vendor_layer = {k: v for k, v in config.as_dict().items() if config.source(k) == VENDOR}
    case = vendor_config.parent.parent.name.replace("-", ":", 1)
    planned = check_vendor_config(case_config_dir(vendor_config), vendor_config, case,
                                  (REPO,))
    assert planned.problems == ()
    assert planned.values == vendor_layer
    nnodes, nproc = (int(n) for n in vendor_config.stem.rsplit("x", 2)[1:])
    if "global_batch_size" in config:   # else a per-rank batch (the Paddle LLM cases'), whole by construction
        assert config.global_batch_size % data_parallel(config, vendor_config, nnodes * nproc) == 0


def data_parallel(config: Any, vendor_config: Path, world: int) -> int:
    """The world over the case's model-parallel degrees (case.yaml ``parallel.degrees``)."""
    from chipperf.suites.catalogue import read_case_meta

    model, family = vendor_config.parent.parent.name.split("-", 1)
    meta = read_case_meta(TRAINING / "benchmarks" / model / family)
    return world // math.prod(config[d] for d in (meta.get("parallel") or {}).get("degrees", ()))


def test_every_accelerator_vendor_has_resnet50_and_bert_pytorch_configs() -> None:
    """Each vendor module has configs for a chip of its spec sheets; a vendor config folder
    whose path has not run on that hardware says so in its README."""
    missing, unsaid = [], []
    for vendor in vendor_names():
        if get_vendor(vendor).plan_problems("", "pytorch", 1, 1):
            continue   # refuses PyTorch at plan time, saying why (tpu: no torch_xla for 2.13)
        if get_vendor(vendor).only_engine:
            continue   # inference only, through its SDK's engine (zixiao, hexaflake)
        for case in ("resnet50-pytorch", "bert-pytorch"):
            folder = TRAINING / vendor / case
            chips = {p.stem[len("config_"):].rsplit("x", 2)[0]
                     for p in (folder / "config").glob("config_*x*x*.py")}
            if not any(get_vendor(vendor).chip(c) for c in chips):
                missing.append(f"{vendor}/{case}: {sorted(chips)}")
            readme = (folder / "README.md").read_text() if (folder / "README.md").is_file() else ""
            if hardware_status(vendor)[0] is False and not re.search(r"not (been )?run", readme, re.I):
                unsaid.append(f"{vendor}/{case}/README.md")
    assert missing == [] and unsaid == []
