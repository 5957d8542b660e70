"""ImageNet-layout folders and ImageNet pre-processing on the host."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "inference" / "benchmarks"))

from chipperf_runtime.inference.errors import CaseError  # noqa: E402
from chipperf_runtime.inference.images import MEAN, STD, ImageFolder, preprocess  # noqa: E402


def write_folder(root: Path, per_class: dict[str, int], size=(40, 20), mode="RGB") -> None:
    for name, count in per_class.items():
        (root / name).mkdir(parents=True)
        for i in range(count):
            Image.new(mode, size, color=(200, 100, 50) if mode == "RGB" else 128).save(
                root / name / f"{i}.png")


def test_preprocess_resizes_crops_and_normalises(tmp_path: Path) -> None:
    write_folder(tmp_path, {"a": 1}, size=(40, 20))
    array = preprocess(tmp_path / "a" / "0.png", resize_size=16, image_size=12)
    assert array.shape == (3, 12, 12) and array.dtype == np.float32
    expected = (np.array([200, 100, 50]) / 255.0 - MEAN) / STD
    np.testing.assert_allclose(array[:, 6, 6], expected, rtol=1e-5)


def test_grayscale_images_become_rgb(tmp_path: Path) -> None:
    write_folder(tmp_path, {"a": 1}, size=(8, 8), mode="L")
    array = preprocess(tmp_path / "a" / "0.png", resize_size=32, image_size=32)
    assert array.shape == (3, 32, 32)
    assert not np.allclose(array[0], array[2])  # per-channel normalisation of equal pixels


def test_scan_prefers_val_and_labels_sorted_classes(tmp_path: Path) -> None:
    write_folder(tmp_path / "val", {"n02": 2, "n01": 3})
    write_folder(tmp_path / "train", {"zzz": 1})
    folder = ImageFolder.scan(tmp_path, 8, 8)
    assert folder.classes == ("n01", "n02") and len(folder) == 5
    assert folder.labels[:4] == (0, 1, 0, 1)  # classes interleaved: a prefix holds both
    capped = ImageFolder.scan(tmp_path, 8, 8, max_items=2)
    assert sorted(capped.labels) == [0, 1]
    batch = folder.batch([0, 1])
    assert batch.inputs[0].shape == (2, 3, 8, 8) and batch.targets.tolist() == [0, 1]


def test_scan_without_val_uses_the_root(tmp_path: Path) -> None:
    write_folder(tmp_path, {"cat": 1, "dog": 1})
    assert ImageFolder.scan(tmp_path, 8, 8).classes == ("cat", "dog")


def test_missing_or_empty_data_dir_names_the_fix(tmp_path: Path) -> None:
    with pytest.raises(CaseError, match="does not exist.*host.yaml CASES"):
        ImageFolder.scan(tmp_path / "nope", 8, 8)
    (tmp_path / "val" / "a").mkdir(parents=True)
    with pytest.raises(CaseError, match="no images .*prepare_digits.py"):
        ImageFolder.scan(tmp_path, 8, 8)
