"""Build the cpu vendor's images on this machine's Docker engine ahead of the tests that use them.

`.ci/run` starts this in the background while the unit, runtime and cases tiers run (they need
no image): on a fresh machine the Debian base (debootstrap) and each image's pip install are
minutes of network and disk work that would otherwise stand alone at the start of the
integration and e2e tiers. The images are built exactly as a run builds them (a test config
with no image settings is ImageBuildConfig's defaults, filled from this machine's pip as
chipperf.run.controller.prepare_images does), so a run finds each one by its build-input hash and
builds nothing; an image that fails here is built, and its failure reported, by the first test
that needs it.

    python .ci/prebuild_images.py FRAMEWORK_FOLDER...     (training/cpu/docker_image/<folder>)
    python .ci/prebuild_images.py SUITE/cpu/docker_image/FOLDER   (another suite's own folder,
                                          e.g. inference's serving image pytorch_vllm_0.32)
"""

from __future__ import annotations

import logging
import sys
import time
from pathlib import Path

from chipperf.config.model import ImageBuildConfig
from chipperf.containers import images
from chipperf.containers.pipconf import fill_from_master, master_pip_settings
from chipperf.remote.host import LocalHost

REPO = Path(__file__).resolve().parents[1]


def main(folders: list[str]) -> int:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s", datefmt="%H:%M:%S")
    cfg = fill_from_master(ImageBuildConfig(), master_pip_settings()).config
    engine = LocalHost().docker()
    failed = []
    for folder in folders:
        started = time.monotonic()
        context, name = image_context(folder)
        try:
            tag = images.ensure_image(engine, name, images.build_inputs(context, cfg), cfg)
        except Exception as exc:  # noqa: BLE001 - reported; the tests build it again and say why
            print(f"prebuild: {folder}: {exc}", file=sys.stderr)
            failed.append(folder)
            continue
        print(f"prebuild: {tag} ready in {time.monotonic() - started:.0f} s", flush=True)
    return 1 if failed else 0


def image_context(folder: str) -> tuple[Path, str]:
    """The build context and the image name a run gives it (chipperf/<suite>-cpu-<folder>)."""
    if "/" not in folder:
        training = REPO / "training" / "cpu" / "docker_image" / folder
        return training, f"chipperf/training-cpu-{folder}".lower()
    suite, name = folder.split("/")[0], Path(folder).name
    return REPO / folder, f"chipperf/{suite}-cpu-{name}".lower()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
