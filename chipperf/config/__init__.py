"""Cluster and test configs: FlagPerf-form .py (read as data) or .yaml -> frozen typed objects."""

from chipperf.config.load import load_cluster, load_test
from chipperf.config.model import CaseEntry, CaseKey, ClusterConfig, ImageBuildConfig, TestConfig

__all__ = ["CaseEntry", "CaseKey", "ClusterConfig", "ImageBuildConfig", "TestConfig",
           "load_cluster", "load_test"]
