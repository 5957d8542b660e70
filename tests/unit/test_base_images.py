"""Base images: the local Debian base is built with debootstrap and never pulled; any other
base a Dockerfile names is pulled (the vendor's or the user's own registry)."""

from __future__ import annotations

from pathlib import Path

import docker.errors
import pytest

from chipperf.config.model import ImageBuildConfig
from chipperf.containers import images
from chipperf.errors import ImageError

REPO = Path(__file__).resolve().parents[2]


class Engine:
    """A build engine that has no image at all and records pulls; a pull fails (no registry)."""

    def __init__(self) -> None:
        self.pulled: list[str] = []
        self.images = self

    def get(self, name: str) -> None:
        raise docker.errors.ImageNotFound(name)

    def pull(self, name: str) -> None:
        self.pulled.append(name)
        raise docker.errors.APIError("no registry reachable")


def test_local_base_name_cannot_come_from_a_public_registry() -> None:
    registry = images.LOCAL_BASE.split("/")[0]
    assert registry.endswith(".local")  # RFC 6762 local names: no public registry serves it


@pytest.mark.parametrize("dockerfile", sorted(REPO.glob("*/cpu/docker_image/*/Dockerfile")),
                         ids=lambda p: str(p.relative_to(REPO)))
def test_every_cpu_image_starts_from_the_local_base(dockerfile: Path) -> None:
    assert images.base_images(dockerfile) == [images.LOCAL_BASE]


def test_local_base_is_built_never_pulled(monkeypatch: pytest.MonkeyPatch) -> None:
    built: list[tuple[str, str]] = []
    monkeypatch.setattr(images, "build_local_base",
                        lambda client, image, mirror: built.append((image, mirror)))
    engine = Engine()
    images.ensure_base(engine, images.LOCAL_BASE, ImageBuildConfig(debian_mirror="http://m/d"))
    assert engine.pulled == []
    assert built == [(images.LOCAL_BASE, "http://m/d")]


def test_a_named_base_is_pulled_and_its_failure_says_what_to_do(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(images, "build_local_base",
                        lambda *a: pytest.fail("a named base must not be replaced by debootstrap"))
    engine = Engine()
    with pytest.raises(ImageError) as err:
        images.ensure_base(engine, "registry.example.com/team/base:1", ImageBuildConfig())
    assert engine.pulled == ["registry.example.com/team/base:1"]
    assert "registry.example.com/team/base:1" in str(err.value)
    assert images.LOCAL_BASE in str(err.value)


def test_base_images_take_build_args_over_arg_defaults(tmp_path: Path) -> None:
    dockerfile = tmp_path / "Dockerfile"
    dockerfile.write_text(f"ARG BASE_IMAGE={images.LOCAL_BASE}\nFROM ${{BASE_IMAGE}} AS build\n"
                          "FROM build\n")
    assert images.base_images(dockerfile) == [images.LOCAL_BASE]
    assert images.base_images(dockerfile, {"BASE_IMAGE": "reg.example/b:2"}) == ["reg.example/b:2"]


def test_the_test_configs_base_image_replaces_the_dockerfiles_default(tmp_path: Path) -> None:
    """BASE_IMAGE in the test config is the build arg: the user's registry's image is the
    base (and part of the image's hash), the local Debian base is not used."""
    from chipperf.config.load import load_test

    (tmp_path / "test.yaml").write_text(
        "vendor: cpu\ncases: {'resnet50:pytorch_2.13:xeon:1:1:1': '/d'}\n"
        "base_image: registry.example.com/team/debian:bookworm\n")
    cfg = load_test(tmp_path / "test.yaml").image
    context = REPO / "training" / "cpu" / "docker_image" / "pytorch_2.13"
    inputs = images.build_inputs(context, cfg)
    assert inputs.build_args["BASE_IMAGE"] == "registry.example.com/team/debian:bookworm"
    assert images.base_images(context / "Dockerfile", inputs.build_args) == [
        "registry.example.com/team/debian:bookworm"]
    default = images.build_inputs(context, ImageBuildConfig())
    assert "BASE_IMAGE" not in default.build_args and default.digest() != inputs.digest()
