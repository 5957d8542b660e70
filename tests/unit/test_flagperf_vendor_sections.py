"""FlagPerf's training test_conf.py, one vendor section at a time, as that vendor's engineer
runs it (VENDOR set, the section's keys, 10 hosts, ``--keep-going``), against the vendor case
folders chipperf carries from FlagPerf (scripts/flagperf_vendor_cases.py), and every one of
those folders' configs planned on its own.

The section counts before the folders were carried (issue 39): nvidia 32 of 57, kunlunxin 0 of
24, metax 0 of 23, iluvatar 0 of 10, mthreads 1 of 4, dcu 0 of 7. nvidia 34 of 57 since
llama3_70B_continuetrain and mixtral_8x7B_continuetrain have pytorch cases (issue 41), 35
with llava1.5_7b_continuetrain's, and kunlunxin 23 of 24, metax 19 of 23 with BASE_IMAGE since
their FlagPerf folders for llama3_70B's and mixtral_8x7B's continuetrain cases are carried too;
kunlunxin 24 of 24, metax 20 of 23 and iluvatar 10 of 10 since llava1.5_7b_continuetrain's and
llava1.5_13b's folders are carried (issue 41). nvidia 41 of 57 with FlagPerf's A800x1x8 and
H800x4x8 configs, llama3_70B's H100x4x8 and mixtral_8x7B:megatron_core060:H100:4:8 planned as
the Megatron-Core implementation (issue 41 item 3); nvidia 57 of 57 since llama1_7B, llama1_13B,
gpt3_6.7B and gpt3_13B have paddle cases reading FlagPerf's layout chip names (issue 41);
mthreads 4 of 4 with BASE_IMAGE since FlagPerf's llama2_7b-deepspeed folder (on its
mthreads_llama2 branch, not its main) and a mthreads deepspeed image folder are carried. dcu
stays at 1 of 7: its six other keys name MetaX's C500, which the plan now says, as it does for
metax's two A100 keys (issue 39)."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

from chipperf.cli import load_all
from chipperf.config.model import CaseEntry, CaseKey, ClusterConfig, ImageBuildConfig, TestConfig
from chipperf.errors import ConfigError
from chipperf.plan import check, make_plan
from chipperf.suites.catalogue import Catalogue, default_training_dir

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path[:0] = [p for p in (str(default_training_dir() / "benchmarks"),) if p not in sys.path]
import flagperf_overlay  # noqa: E402

from chipperf_runtime.training.driver.config import load_case_config  # noqa: E402

TRAINING = default_training_dir()
HOSTS = [f"10.1.2.{i}" for i in range(1, 11)]
KEY = re.compile(r'^\s*#?\s*"([^"]+:[^"]+:[^"]+:\d+:\d+:\d+)"\s*:\s*"([^"]*)"', re.M)
CARRIED = ("kunlunxin", "metax", "iluvatar", "mthreads", "dcu", "ascend", "cambricon")

# vendor section -> (keys, planned with the vendor's BASE_IMAGE set, planned as FlagPerf's file is)
PLANNED = {"nvidia": (57, 57, 57), "kunlunxin": (24, 24, 0), "iluvatar": (10, 10, 0),
           "mthreads": (4, 4, 3), "metax": (23, 20, 0), "dcu": (7, 1, 1)}
# why the rest do not plan: FlagPerf's own implementations of models chipperf has no case for
# (metax's llama2_7b megatron-deepspeed key; llama3_70B's, mixtral_8x7B's and llava1.5_7b's
# continuetrain keys plan as chipperf's pytorch cases, the megatron_core060 keys as its
# Megatron-Core implementation), and keys naming another vendor's chip (FOREIGN)
REASONS = ("framework ", "no case code ", "missing vendor config ", "vendor '")
# section -> (keys naming another vendor's chip, that vendor): FlagPerf's test_conf lists MetaX's
# C500 under dcu and NVIDIA's A100 under metax; neither vendor's FlagPerf folders have them
FOREIGN = {"dcu": (6, "metax"), "metax": (2, "nvidia")}


def sections() -> dict[str, dict[str, str]]:
    text = (flagperf_overlay.DATA / "run_benchmarks" / "config" / "test_conf_full.py").read_text()
    parts = re.split(r"^\s*#\s*(\w+) cases\s*$", text.split("CASES = {", 1)[1], flags=re.M)
    return {name: dict(KEY.findall(body)) for name, body in zip(parts[1::2], parts[2::2])}


def plan_section(tmp_path: Path, vendor: str, keys: dict[str, str], base_image: bool
                 ) -> tuple[list[str], dict[str, tuple[str, ...]]]:
    """(keys planned, skipped key -> its problems) of ``chipperf plan --keep-going``."""
    test, cluster = tmp_path / f"{vendor}_test_conf.py", tmp_path / "cluster_conf.py"
    base = f'BASE_IMAGE = "registry.example/{vendor}/framework"\n' if base_image else ""
    test.write_text(f'VENDOR = "{vendor}"\n{base}RESULT_ROOT = "{tmp_path / "result"}"\n'
                    f"CASES = {keys!r}\n")
    cluster.write_text(f"HOSTS = {HOSTS!r}\n")
    try:
        _, kept, _ = load_all(str(cluster), str(test), str(TRAINING), keep_going=True)
    except ConfigError as err:     # --keep-going with nothing left: every key's problems
        by_key: dict[str, tuple[str, ...]] = {}
        for problem in err.problems:
            match = re.search(r"CASES\['([^']+)'\]", problem)
            if match:
                by_key[match.group(1)] = by_key.get(match.group(1), ()) + (problem,)
        return [], by_key
    return [str(e.key) for e in kept.cases], {s.key: s.problems for s in kept.skipped}


@pytest.mark.parametrize("vendor", sorted(PLANNED))
def test_each_vendor_section_plans_its_carried_cases(tmp_path, vendor):
    keys = sections()[vendor]
    planned, skipped = plan_section(tmp_path, vendor, keys, base_image=True)
    assert (len(keys), len(planned)) == PLANNED[vendor][:2], skipped
    reasons = [re.sub(r"^.*?\]: ", "", problems[0]) for problems in skipped.values()]
    assert all(r.startswith(REASONS) for r in reasons), reasons
    count, owner = FOREIGN.get(vendor, (0, ""))
    foreign = [r for r in reasons if r.startswith(f"vendor {vendor!r} has no chip ")]
    assert len(foreign) == count and all(
        f"spec sheets give it to vendor {owner!r}" in r and f"FlagPerf's training/{vendor}/" in r
        and f"run it with VENDOR = {owner!r}" in r for r in foreign), foreign


@pytest.mark.parametrize("vendor", ["kunlunxin", "iluvatar", "metax"])
def test_without_base_image_a_vendor_with_no_public_image_is_refused_saying_so(tmp_path, vendor):
    keys = sections()[vendor]
    planned, skipped = plan_section(tmp_path, vendor, keys, base_image=False)
    assert len(planned) == PLANNED[vendor][2] == 0
    with_base, _ = plan_section(tmp_path, vendor, keys, base_image=True)
    naming = {k for k, problems in skipped.items() if any("set BASE_IMAGE" in p for p in problems)}
    assert len(with_base) == PLANNED[vendor][1] and set(with_base) <= naming


def vendor_configs() -> list[Path]:
    return sorted(p for v in CARRIED for p in (TRAINING / v).glob("*-*/config/config_*x*x*.py"))


def test_every_carried_vendor_config_plans_on_its_own(tmp_path):
    """Each config of the seven vendors' folders, as its own key (BASE_IMAGE set: none of
    these vendors but mthreads, dcu and ascend publishes an image), plans, and the file the
    case then reads (the plan's translation of FlagPerf's names, or the config itself) loads
    with the case's own loader (every fifth config, to keep the unit tier quick); the one
    FlagPerf config that does not plan is refused for the chip's memory, as the plan says."""
    catalogue = Catalogue.scan(TRAINING)
    refused = {}
    for number, path in enumerate(vendor_configs()):
        vendor = path.parents[2].name
        model, family = path.parents[1].name.rsplit("-", 1)
        chip, nnodes, nproc = path.stem[len("config_"):].rsplit("x", 2)
        folders = sorted(f for v, f in catalogue.images if v == vendor and f.startswith(family))
        key = CaseKey.parse(f"{model}:{folders[-1]}:{chip}:{nnodes}:{nproc}:1")
        test = TestConfig(vendor=vendor, cases=(CaseEntry(key, "/data"),),
                          result_root=str(TRAINING.parent / "result"),
                          image=ImageBuildConfig(base_image=f"registry.example/{vendor}/framework"))
        problems = check(ClusterConfig(hosts=tuple(f"10.1.2.{i}" for i in range(1, 17))), test,
                         catalogue)
        if problems:
            refused[str(path.relative_to(TRAINING))] = problems
            continue
        if number % 5:
            continue
        files = make_plan(ClusterConfig(hosts=tuple(f"10.1.2.{i}" for i in range(1, 17))), test,
                          catalogue, "run1", Path("r")).files
        read = tmp_path / "translated.py" if files else path
        if files:
            read.write_text(files[0][1])
        assert load_case_config(catalogue.cases[(model, family)] / "config", read, ()), path
    assert len(vendor_configs()) == 255
    assert list(refused) == ["kunlunxin/baichuan2_13b-pytorch/config/config_R300x1x1.py"]
    assert "needs at least 207.1 GiB per chip" in refused[
        "kunlunxin/baichuan2_13b-pytorch/config/config_R300x1x1.py"][0]


# FlagPerf's main at the commit carried, and the folders it keeps elsewhere
# (scripts/flagperf_vendor_extras.py ELSEWHERE)
SOURCES = ("FlagPerf@1b5a0303 training/", "FlagPerf@9c646060 (branch mthreads_llama2) training/",
           "FlagPerf@1e05cb65 (pull request 375) training/",
           "FlagPerf@f37ffdfc (pull request 375) training/")


def test_each_carried_file_names_flagperf_s_commit():
    carried = [p for v in CARRIED for p in (TRAINING / v).glob("*-*/config/*")
               if p.is_file() and p.read_text().startswith("# From FlagOpen/FlagPerf")]
    firsts = [p.read_text().splitlines()[0] for p in carried]
    assert carried and all(any(s in first for s in SOURCES) for first in firsts)
    # mthreads llama2_7b: config and environment; dcu detr: 6 files; dcu glm: 4 Z100L configs
    assert sum(SOURCES[0] not in first for first in firsts) == 2 + 6 + 4
