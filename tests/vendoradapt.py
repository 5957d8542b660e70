"""The vendor-adaptation test data (tests/fixtures/vendor_adaptation/) made ready for a test:
a training root with the test vendor's case folder, and the probe wheel its requirements name.
"""

from __future__ import annotations

import base64
import hashlib
import shutil
import zipfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
FIXTURE = Path(__file__).resolve().parent / "fixtures" / "vendor_adaptation"
VENDOR_CASE = FIXTURE / "cpu" / "resnet50-pytorch"
PROBE = "chipperf_adapter_probe"
PROBE_MARK = "adapter-probe-1.0"
PROBE_WHEEL = "chipperf_adapter_probe-1.0-py3-none-any.whl"


def training_root(target: Path) -> Path:
    """``target``/training: chipperf's case code and cpu images (linked), and the fixture as
    the cpu vendor's only case folder."""
    root = target / "training"
    (root / "cpu").mkdir(parents=True)
    (root / "benchmarks").symlink_to(REPO / "training" / "benchmarks")
    (root / "cpu" / "docker_image").symlink_to(REPO / "training" / "cpu" / "docker_image")
    shutil.copytree(VENDOR_CASE, root / "cpu" / VENDOR_CASE.name)
    shutil.copyfile(FIXTURE / "cpu" / "environment_variables.sh",
                    root / "cpu" / "environment_variables.sh")
    return root


def probe_wheel(folder: Path) -> Path:
    """A one-module pure-Python wheel (``chipperf_adapter_probe.MARK``), written by hand: no
    build backend or index is needed."""
    folder.mkdir(parents=True, exist_ok=True)
    info = "chipperf_adapter_probe-1.0.dist-info"
    files = {
        f"{PROBE}.py": f'"""Test probe: importable when the case\'s requirements were installed."""\n'
                       f'MARK = "{PROBE_MARK}"\n',
        f"{info}/METADATA": "Metadata-Version: 2.1\nName: chipperf-adapter-probe\nVersion: 1.0\n",
        f"{info}/WHEEL": "Wheel-Version: 1.0\nGenerator: chipperf-tests\nRoot-Is-Purelib: true\n"
                         "Tag: py3-none-any\n",
    }
    record = [f"{name},sha256={_digest(text)},{len(text.encode())}" for name, text in files.items()]
    files[f"{info}/RECORD"] = "\n".join([*record, f"{info}/RECORD,,"]) + "\n"
    path = folder / PROBE_WHEEL
    with zipfile.ZipFile(path, "w") as wheel:
        for name, text in files.items():
            wheel.writestr(name, text)
    return path


def _digest(text: str) -> str:
    raw = hashlib.sha256(text.encode()).digest()
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()
