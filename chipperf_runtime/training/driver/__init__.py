"""The shared training-case driver (framework-agnostic; imports no framework).

See docs/adding-a-case.md. Case code does::

    from chipperf_runtime.training.driver import Driver, Metric, run_case, split_batch
"""

from __future__ import annotations

from chipperf_runtime.training.driver.args import CaseArgs, parse_args, parse_overrides
from chipperf_runtime.training.driver.case import Driver
from chipperf_runtime.training.driver.config import Config, load_case_config, load_config, read_python
from chipperf_runtime.training.driver.datadir import (
    IMAGE_FOLDER_LAYOUT,
    labelled_splits,
    require_dir,
    require_same_classes,
    scan_image_folder,
)
from chipperf_runtime.training.driver.dist import DistEnv, split_batch
from chipperf_runtime.training.driver.errors import CaseError, ConfigError, DataError, Diverged, LaunchError
from chipperf_runtime.training.driver.events import CaseLog
from chipperf_runtime.training.driver.finished import (
    Attention,
    Metric,
    build_finished,
    total_over_ranks,
)
from chipperf_runtime.training.driver.main import run_case
from chipperf_runtime.training.driver.windows import Windows, WindowTimes

__all__ = [
    "IMAGE_FOLDER_LAYOUT",
    "Attention",
    "CaseArgs",
    "CaseError",
    "CaseLog",
    "Config",
    "ConfigError",
    "DataError",
    "Diverged",
    "DistEnv",
    "Driver",
    "LaunchError",
    "Metric",
    "WindowTimes",
    "Windows",
    "build_finished",
    "labelled_splits",
    "load_case_config",
    "load_config",
    "parse_args",
    "parse_overrides",
    "read_python",
    "require_dir",
    "require_same_classes",
    "run_case",
    "scan_image_folder",
    "split_batch",
    "total_over_ranks",
]
