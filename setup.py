"""Packaging beside pyproject.toml: a plain (not editable) install carries the suites' case
roots (training/, inference/, base/, operation/: case code, vendor configs, image folders) as
data under ``chipperf/_cases/``, where ``chipperf.suites.suite.CASE_HOME`` finds them when
chipperf does not run from a checkout. An editable install reads the checkout's own folders."""

from __future__ import annotations

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

SUITE_ROOTS = ("training", "inference", "base", "operation")
LEFT_OUT = shutil.ignore_patterns("__pycache__", "*.pyc", "result")   # a run's own outputs too


class BuildWithCaseRoots(build_py):
    """build_py, then the case roots copied into the built package (not for editable builds)."""

    def run(self) -> None:
        super().run()
        if getattr(self, "editable_mode", False):
            return
        here = Path(__file__).resolve().parent
        for name in SUITE_ROOTS:
            target = Path(self.build_lib) / "chipperf" / "_cases" / name
            shutil.rmtree(target, ignore_errors=True)
            # a wheel holds no links: a folder linked to training's image folder is copied
            shutil.copytree(here / name, target, ignore=LEFT_OUT)


setup(cmdclass={"build_py": BuildWithCaseRoots})
