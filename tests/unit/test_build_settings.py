"""run.json records the image build settings a run used: the effective ones after the
master's pip filled the unset ones, what came from the master, what could not be used."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import docker.errors

from chipperf.config.model import ClusterConfig, ImageBuildConfig, TestConfig
from chipperf.containers import images
from chipperf.containers.pipconf import fill_from_master
from chipperf.run.record import RunRecord

MASTER = {"index-url": "https://mirror.example/simple",
          "extra-index-url": "file:///opt/pypi/simple https://extra.example/simple",
          "find-links": "/opt/wheels", "cert": "/no/such/ca.pem"}


def test_unset_settings_come_from_the_master_and_the_unusable_are_named() -> None:
    filled = fill_from_master(ImageBuildConfig(wheelhouse="/srv/wh"), MASTER)
    cfg = filled.config
    assert cfg.pip_index_url == "https://mirror.example/simple"
    assert cfg.pip_extra_index_urls == ("https://extra.example/simple",)
    assert cfg.pip_find_links == ("/opt/wheels",)
    assert cfg.ca_bundle is None and cfg.wheelhouse == "/srv/wh"
    assert set(filled.filled) == {"pip_index_url", "pip_extra_index_urls", "pip_find_links"}
    assert filled.skipped == (
        "extra-index-url file:///opt/pypi/simple: a file:// index cannot be reached from an "
        "image build", "cert /no/such/ca.pem: not a file on the master")


def test_settings_of_the_test_config_win_over_the_master() -> None:
    filled = fill_from_master(ImageBuildConfig(pip_index_url="https://mine/simple"), MASTER)
    assert filled.config.pip_index_url == "https://mine/simple"
    assert "pip_index_url" not in filled.filled


def test_build_settings_hold_every_effective_value_with_proxy_passwords_masked() -> None:
    cfg = ImageBuildConfig(pip_index_url="https://i/simple", pip_find_links=("/w",),
                           wheelhouse="/wh", ca_bundle="/ca.pem",
                           https_proxy="http://bob:s3cret@proxy:3128", no_proxy="localhost")
    settings = images.build_settings(cfg, ("pip_index_url",), ("x: why",))
    assert settings["pip_index_url"] == "https://i/simple"
    assert settings["pip_find_links"] == ["/w"] and settings["wheelhouse"] == "/wh"
    assert settings["ca_bundle"] == "/ca.pem" and settings["no_proxy"] == "localhost"
    assert settings["https_proxy"] == "http://bob:***@proxy:3128"
    assert settings["from_master"] == ["pip_index_url"] and settings["not_used"] == ["x: why"]
    assert "s3cret" not in json.dumps(settings)


class Engine:
    """A build engine holding only the local base."""

    def __init__(self) -> None:
        self.images = self

    def get(self, name: str) -> SimpleNamespace:
        if name != images.LOCAL_BASE:
            raise docker.errors.ImageNotFound(name)
        return SimpleNamespace(id="sha256:abc")


def test_case_build_names_the_base_its_origin_build_args_and_wheels(tmp_path: Path) -> None:
    context = tmp_path / "ctx"
    context.mkdir()
    (context / "Dockerfile").write_text(f"ARG BASE_IMAGE={images.LOCAL_BASE}\nFROM ${{BASE_IMAGE}}\n")
    wheels = tmp_path / "wheels"
    wheels.mkdir()
    (wheels / "torch-2.13.0-cp311-none-any.whl").write_bytes(b"w")
    cfg = ImageBuildConfig(pip_find_links=(str(wheels),), http_proxy="http://u:p@px:1")
    entry = images.case_build(Engine(), images.build_inputs(context, cfg))
    assert entry["base_images"] == [{"name": images.LOCAL_BASE, "id": "sha256:abc",
                                     "origin": "debootstrap (local)"}]
    assert entry["wheel_files"] == ["torch-2.13.0-cp311-none-any.whl"]
    assert entry["build_args"]["HTTP_PROXY"] == "http://u:***@px:1"
    assert entry["build_args"]["PIP_FIND_LINKS"] == "/chipperf-build/wheels"

    named = images.build_inputs(context, ImageBuildConfig())
    other = images.BuildInputs(named.context, (), None, {"BASE_IMAGE": "reg.example/b:1"})
    assert images.case_build(Engine(), other)["base_images"] == [
        {"name": "reg.example/b:1", "id": None, "origin": "named by the Dockerfile"}]


def test_run_json_holds_the_effective_settings(tmp_path: Path) -> None:
    plan = SimpleNamespace(result_dir=tmp_path, run_id="run20250101000000", cases=[])
    test = TestConfig(vendor="cpu", cases=())  # run.json's "test": the config as written
    record = RunRecord(plan, ClusterConfig(hosts=("127.0.0.1",)), test, "training")  # type: ignore[arg-type]
    filled = fill_from_master(ImageBuildConfig(), MASTER)
    record.image_build(images.build_settings(filled.config, filled.filled, filled.skipped))
    run = json.loads((tmp_path / "run.json").read_text())
    assert run["image_build"]["pip_index_url"] == "https://mirror.example/simple"
    assert run["image_build"]["from_master"] == list(filled.filled)
    assert run["test"]["image"]["pip_index_url"] is None
