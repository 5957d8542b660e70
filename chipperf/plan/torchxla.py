"""Plan checks of PyTorch through torch_xla (a ``pytorch_xla_<version>`` framework, device kind
xla): the vendor must have a PJRT device (cpu: CPU, tpu: TPU), the case an XLA loop (case.yaml's
``torch_xla: true``), the run one process, and the image folder's requirements must pin a
torch_xla and a torch of the same release (torch_xla requires its torch exactly; a TPU image is
never built here, so a mismatch would otherwise surface only on the TPU VM)."""

from __future__ import annotations

import re
from pathlib import Path

from chipperf.config.model import CaseKey, TestConfig
from chipperf.plan.case import image_choice
from chipperf.suites.catalogue import Catalogue, read_case_meta
from chipperf_runtime.device import TORCH_XLA_FRAMEWORK, torch_xla_framework
from chipperf_runtime.device.xlametrics import release
from chipperf_runtime.vendors import get_vendor, vendor_names

_PIN = re.compile(r"^\s*(torch|torch_xla|torch-xla)(?:\[[^\]]*\])?\s*==\s*([0-9][^\s;#]*)", re.M)


def vendor_family(key: CaseKey) -> str:
    """The family a vendor's plan check sees: ``pytorch_xla`` for PyTorch through torch_xla."""
    return TORCH_XLA_FRAMEWORK if torch_xla_framework(key.framework) else key.family


def pinned_pair(requirements: str) -> tuple[str | None, str | None]:
    """(torch, torch_xla) as a requirements file pins them with ``==``; None where unpinned."""
    pins = {name.replace("-", "_"): version for name, version in _PIN.findall(requirements)}
    return pins.get("torch"), pins.get("torch_xla")


def pin_problem(requirements: Path) -> str | None:
    """A requirements file pinning a torch_xla of another release than its torch, or None."""
    if not requirements.is_file():
        return None
    torch, torch_xla = pinned_pair(requirements.read_text(encoding="utf-8"))
    if torch is None or torch_xla is None or release(torch) == release(torch_xla):
        return None
    return (f"{requirements} pins torch_xla=={torch_xla} beside torch=={torch}: torch_xla "
            f"{torch_xla} is built for torch {release(torch_xla)} and requires it exactly: pin "
            f"torch=={release(torch_xla)}.* or the torch_xla release of torch {torch}")


def torch_xla_problems(key: CaseKey, test: TestConfig, catalogue: Catalogue) -> list[str]:
    """What a pytorch_xla_<version> key cannot run with (none for any other framework)."""
    vendor = test.vendor
    if not torch_xla_framework(key.framework) or vendor not in vendor_names():
        return []
    problems = []
    case_dir = catalogue.cases.get((key.model, key.family))
    if case_dir is not None and not read_case_meta(case_dir).get("torch_xla"):
        problems.append(f"framework {key.framework!r} runs PyTorch through torch_xla, and case "
                        f"{key.model!r} has no XLA loop (its case.yaml lacks torch_xla: true; "
                        "resnet50 has one): use a PyTorch framework without xla")
    if get_vendor(vendor).pjrt_device is None:
        having = [v for v in vendor_names() if get_vendor(v).pjrt_device is not None]
        problems.append(f"framework {key.framework!r} runs PyTorch through torch_xla (PJRT), "
                        f"and vendor {vendor!r} has no PJRT device for it: use vendor "
                        f"{' or '.join(having)}, or a PyTorch framework without xla")
    if key.nnodes * key.nproc > 1:
        problems.append(f"framework {key.framework!r} runs one process (nnodes=1, nproc=1): "
                        "chipperf's torch_xla path has no multi-process launch (PJRT's "
                        "torchrun/xmp.spawn) yet: use nnodes=1, nproc=1")
    folder = image_choice(key.framework, test, catalogue).folder
    if folder is not None and (vendor, folder) in catalogue.images:
        problem = pin_problem(catalogue.images[(vendor, folder)] / "requirements.txt")
        problems += [problem] if problem else []
    return problems
