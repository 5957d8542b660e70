"""A case of a Hugging Face library that the vendor runs through a package of its own, in an
image folder that does not install that package, found at plan time.

A case folder's ``case.yaml`` names the library its code runs on (``library: transformers``,
``library: diffusers``); a vendor module's ``library_paths`` says which package it reaches
that library's cases through on its chip (intel_gaudi: Optimum Habana) and which image
folder installs it (``LibraryPath``). What the image has is read as for engines
(``chipperf.plan.engines``): its folder's ``requirements*.txt``, the vendor case's
``config/requirements.txt`` (an image layer) and the modules its Dockerfile's check line
imports. Not in in-container mode, which builds no image.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from chipperf.plan.engines import image_installs
from chipperf_runtime.vendors.base import Vendor

LIBRARY_KEY = "library"   # case.yaml: the Hugging Face library the case's code runs on


def library_problems(library: object, vendor: Vendor, image: Path, vendor_images: Path,
                     requirements: Iterable[Path], where: str) -> list[str]:
    """The problem of a case of ``library`` whose vendor reaches that library only through a
    package (``vendor.library_paths``) that the image folder ``image`` and the extra
    ``requirements`` do not install; ``vendor_images``: the vendor's docker_image folder."""
    path = vendor.library_paths.get(library) if isinstance(library, str) else None
    if path is None or image_installs(path.module, path.distributions, image, requirements):
        return []
    return [f"{where}: a {library} case on vendor {vendor.name!r} runs through {path.package} "
            f"(module {path.module!r}), which image folder {image} does not install (not in its "
            f"requirements*.txt, nor imported in its Dockerfile's check line): use the framework "
            f"{path.framework} in the case key (its image folder, {vendor_images / path.framework}, "
            f"installs {path.distributions[0]})"]
