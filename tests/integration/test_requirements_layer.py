"""A vendor case's requirements as an image layer, built on this machine's Docker engine on
the cpu PyTorch image (issue 39): the probe wheel installed and importable in the layer, the
layer reused when nothing changed, and a requirement pip cannot install reported naming the
vendor, the case and the file. Needs the cpu image built first (a run, or `chipperf selftest`)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from chipperf.config.model import ImageBuildConfig
from chipperf.containers import images
from chipperf.errors import ImageError

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from vendoradapt import PROBE_MARK, VENDOR_CASE, probe_wheel  # noqa: E402

pytestmark = pytest.mark.integration
FRAMEWORK = "chipperf/training-cpu-pytorch_2.13"
NAME = "chipperf/test-adaptation-cpu-pytorch_2.13"
WHERE = "resnet50:pytorch_2.13:xeon:1:1:1: vendor 'cpu'"


@pytest.fixture
def base_tag(local_docker) -> str:
    found = [t for image in local_docker.images.list(FRAMEWORK) for t in image.tags]
    if not found:
        pytest.skip(f"no {FRAMEWORK} image on this engine: build it first (a cpu run builds it)")
    return sorted(found)[0]


def inputs(tmp_path: Path) -> images.BuildInputs:
    """The probe wheel as the run's wheelhouse (the layer's pip finds it there)."""
    wheel = probe_wheel(tmp_path / "wheels")
    return images.BuildInputs(tmp_path, (wheel,), None,
                              {"PIP_FIND_LINKS": "/chipperf-build/wheels"})


def test_the_layer_installs_the_requirement_and_is_reused(local_docker, base_tag, tmp_path) -> None:
    requirements = VENDOR_CASE / "config" / "requirements.txt"
    built = inputs(tmp_path)
    cfg = ImageBuildConfig()
    tag = images.ensure_layer(local_docker, NAME, base_tag, built, cfg, requirements, WHERE)
    assert tag.startswith(f"{NAME}{images.LAYER_SUFFIX}:")
    out = local_docker.containers.run(tag, ["python3", "-c",
                                            "import chipperf_adapter_probe as p; print(p.MARK)"],
                                      remove=True)
    assert out.decode().strip() == PROBE_MARK
    assert images.ensure_layer(local_docker, NAME, base_tag, built, cfg, requirements,
                               WHERE) == tag          # same inputs: the same tag, not rebuilt


def test_a_requirement_pip_cannot_install_names_vendor_case_and_file(
        local_docker, base_tag, tmp_path) -> None:
    requirements = tmp_path / "requirements.txt"
    requirements.write_text("chipperf-no-such-package==9.9\n")
    with pytest.raises(ImageError) as err:
        images.ensure_layer(local_docker, NAME, base_tag, inputs(tmp_path), ImageBuildConfig(),
                            requirements, WHERE)
    message = str(err.value)
    assert message.startswith(f"{WHERE}: {requirements}: installing the case's requirements on "
                              f"{base_tag} failed: ")
    assert "No matching distribution found for chipperf-no-such-package==9.9" in message
