"""What one suite is: the conventions and rules that differ between training, inference,
base and operation, held in one object so that the engine asks the suite instead of testing
its name (each suite is the module ``chipperf/suites/<name>.py`` defining ``SUITE``)."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Callable

if TYPE_CHECKING:
    from chipperf.config.model import CaseKey, ClusterConfig, TestConfig
    from chipperf.suites.catalogue import Catalogue

CHECKOUT = Path(__file__).resolve().parents[2]     # the clone, when chipperf runs from one
PACKAGED_CASES = Path(__file__).resolve().parents[1] / "_cases"   # what setup.py copies into a wheel


def case_home() -> Path:
    """The folder holding the suites' case roots (training/, inference/, base/, operation/):
    the checkout chipperf runs from (a clone, an editable install), else the copy a plain
    `pip install` carries (setup.py)."""
    if (CHECKOUT / "pyproject.toml").is_file() and (CHECKOUT / "training").is_dir():
        return CHECKOUT
    return PACKAGED_CASES


# each suite's default case root is the folder named after it here
REPO = case_home()


class Overrides(enum.Enum):
    """How a suite's cases take OVERRIDES (the case's --set NAME=VALUE arguments)."""

    PYTHON = "Python literals, checked against the case's config/_base.py"
    YAML = "YAML values, checked with the model config layers the case reads"
    NONE = "not taken"


@dataclass(frozen=True)
class ConfigFiles:
    """The config files and case root a command line names (None: the suite's default)."""

    cluster: str | None = None
    test: str | None = None
    host_config: str | None = None
    case_root: str | None = None


@dataclass(frozen=True)
class Loaded:
    """A suite's configs as read, before the plan's checks: every problem found so far."""

    cluster: "ClusterConfig"
    test: "TestConfig"
    problems: list[str]
    catalogue: "Catalogue"
    where: str                  # the file the test part came from (problems name it)


@dataclass(frozen=True)
class Suite:
    name: str
    entry: str                                  # benchmarks/<case>/<family>/<entry>: the program
    scanner: Callable[[Path, "Suite"], "Catalogue"]   # the case root's folder conventions
    loader: Callable[[ConfigFiles, "Suite"], Loaded]  # its config files, as FlagPerf writes them
    reads_host_yaml: bool          # one <suite>/configs/host.yaml, not a cluster and a test config
    vendor_config_per_topology: bool   # config_<chip>x<nnodes>x<nproc>.py, not <vendor>_configuration.yaml
    vendor_config_follows_case: bool   # the vendor's config folder is found from the case code
    configs_are_python: bool       # config/_base.py knobs under the vendor's .py (case.yaml needs)
    layered_model_configs: bool    # configuration.yaml + vendor file read as the case layers them
    overrides: Overrides
    trains: bool                   # a model trained to a target (its words: training, converged)
    infers: bool                   # items served by a model: per-item figures, latency percentiles
    measures_spec: bool            # one value per case against the chip's spec sheet
    measures_peak: bool            # that value is the chip's own peak (no MFU of it, no latency)
    spec_in_case_key: bool         # the case key carries the spec figure (op:dtype:TFLOPS:...)
    case_noun: str                 # what one case is called in `chipperf cases`
    result_kind: str               # the results' table family: training, inference or spec
    vendor_folder: Callable[[Path, str, "CaseKey", str], str]   # (root, vendor, key, config file)
    round_figures: tuple[str, ...]   # the headline figures of FINISHED each round's table shows
    case_of_model: Callable[[str], str] = str   # a key's model -> its case folder

    @property
    def default_root(self) -> Path:
        """The repository's folder of this suite: its case root unless one is given."""
        return REPO / self.name

    def scan(self, root: Path) -> "Catalogue":
        return self.scanner(Path(root).resolve(), self)

    def load(self, files: ConfigFiles) -> Loaded:
        return self.loader(files, self)

    @property
    def config_subdir(self) -> str:
        """Where the vendor config file sits inside the uploaded vendor case folder."""
        return "config" if self.vendor_config_per_topology else ""

    def vendor_config_name(self, key: "CaseKey", vendor: str) -> str:
        return key.vendor_config_name if self.vendor_config_per_topology \
            else f"{vendor}_configuration.yaml"

    def __str__(self) -> str:
        return self.name
