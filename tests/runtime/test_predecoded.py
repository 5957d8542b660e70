"""data_mode = "predecoded" (imagecls.predecoded): the store holds the pixels imagecls.data
would give, batches come back in order with their labels, and the device-side crop samples
torchvision's RandomResizedCrop box distribution without leaving the image."""

from __future__ import annotations

import json
import math
import threading
from pathlib import Path

import numpy as np
import pytest
import torch
from PIL import Image

from chipperf_runtime.training.driver import DataError
from chipperf_runtime.training.imagecls.data import center_crop, read_splits, to_tensor
from chipperf_runtime.training.imagecls.predecoded import (
    Batches,
    DeviceTransform,
    Layout,
    crop_boxes,
    crop_theta,
    main,
    make_store,
    open_store,
    read_ahead,
    warp,
)

CROP = Layout(image_size=16, train_augment="random_resized_crop_flip", val_crop_ratio=0.8)


@pytest.fixture(scope="module")
def folders(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two classes of random RGB images of several shapes, in train/ and val/."""
    root = tmp_path_factory.mktemp("images")
    rng = np.random.default_rng(0)
    for split, count in (("train", 6), ("val", 3)):
        for label in ("cat", "dog"):
            (root / split / label).mkdir(parents=True)
            for i in range(count):
                shape = (20 + 7 * i, 24 + 5 * (i % 3), 3)
                pixels = rng.integers(0, 256, shape, dtype=np.uint8)
                Image.fromarray(pixels).save(root / split / label / f"{i}.png")
    return root


def test_store_holds_what_the_folders_give(folders: Path) -> None:
    out = make_store(folders, CROP, workers=2)
    meta = json.loads((out / "meta.json").read_text())
    assert (meta["train_images"], meta["val_images"], meta["train_side"]) == (12, 6, 20)
    store = open_store(folders, CROP)
    assert store.classes == ("cat", "dog")
    train, val = read_splits(folders)
    assert store.pixels("train").shape == (12, 20, 20, 3)
    assert store.labels("val").tolist() == [label for _, label in val.samples]
    # val: imagecls.data's evaluation transform, pixel for pixel, and the same normalised tensor
    path, _ = val.samples[4]
    with Image.open(path) as image:
        expected = center_crop(image.convert("RGB"), 16, 0.8)
    assert np.array_equal(store.pixels("val")[4], np.asarray(expected))
    images, _ = Batches(store, "val")[[4]]
    normalised = DeviceTransform(16, False, torch.device("cpu"), 0)(images)
    torch.testing.assert_close(normalised[0], to_tensor(expected))
    # train: the image's center square at 16 / 0.8 = 20 px
    with Image.open(train.samples[7][0]) as image:
        square = center_crop(image.convert("RGB"), 20, 1.0)
    assert np.array_equal(store.pixels("train")[7], np.asarray(square))


def test_batches_are_read_in_index_order_with_their_labels(folders: Path) -> None:
    make_store(folders, CROP, workers=1)
    store = open_store(folders, CROP)
    images, labels = Batches(store, "train")[[9, 2, 5]]
    assert images.dtype == torch.uint8 and images.shape == (3, 20, 20, 3)
    assert labels.tolist() == store.labels("train")[[2, 5, 9]].tolist()
    assert torch.equal(images[0], torch.from_numpy(np.array(store.pixels("train")[2])))


def test_a_missing_or_different_store_names_the_command_that_makes_it(folders: Path,
                                                                      tmp_path: Path) -> None:
    with pytest.raises(DataError, match="missing or unfinished") as missing:
        open_store(tmp_path, CROP)
    assert "python -m chipperf_runtime.training.imagecls.predecoded" in str(missing.value)
    make_store(folders, CROP, workers=1)
    other = Layout(16, "random_resized_crop_flip", 0.875)
    with pytest.raises(DataError, match="was made for") as different:
        open_store(folders, other)
    assert "--val-crop-ratio 0.875" in str(different.value)


def test_command_line_makes_the_store_and_reports_it(folders: Path, capsys) -> None:
    assert main([str(folders), "--image-size", "16", "--train-augment", "resize",
                 "--val-crop-ratio", "1.0", "--workers", "1"]) == 0
    assert "12 train images at 16 px and 6 val images at 16 px" in capsys.readouterr().out
    assert main([str(folders / "nothing")]) == 2


def test_crop_boxes_follow_random_resized_crop() -> None:
    generator = torch.Generator().manual_seed(1)
    width, height = crop_boxes(20000, generator, torch.device("cpu"))
    assert bool(((width > 0) & (width <= 1) & (height > 0) & (height <= 1)).all())
    area, aspect = width * height, width / height
    drawn = area < 1                       # the rest fell back to the whole square
    assert float(drawn.float().mean()) > 0.95
    assert float(area[drawn].min()) >= 0.08 - 1e-6
    assert math.log(3 / 4) - 1e-5 <= float(aspect[drawn].log().min())
    assert float(aspect[drawn].log().max()) <= math.log(4 / 3) + 1e-5
    # area is uniform on [0.08, 1] before the fit test drops large, elongated boxes
    assert 0.45 < float(area[drawn].mean()) < 0.55


def test_crops_stay_inside_the_image_and_flip_half() -> None:
    theta = crop_theta(5000, torch.Generator().manual_seed(2), torch.device("cpu"))
    for axis, scale in ((0, theta[:, 0, 0].abs()), (1, theta[:, 1, 1])):
        assert bool((scale + theta[:, axis, 2].abs() <= 1 + 1e-6).all())
    assert 0.45 < float((theta[:, 0, 0] < 0).float().mean()) < 0.55


def test_warp_of_the_whole_box_is_the_image_and_a_mirror_its_flip() -> None:
    pixels = torch.rand(2, 3, 8, 8)
    whole = torch.tensor([[[1.0, 0, 0], [0, 1, 0]], [[-1.0, 0, 0], [0, 1, 0]]])
    out = warp(pixels, whole, 8)
    torch.testing.assert_close(out[0], pixels[0])
    torch.testing.assert_close(out[1], pixels[1].flip(-1))
    top_left = torch.tensor([[[0.5, 0, -0.5], [0, 0.5, -0.5]]])   # rows and columns 0-3
    torch.testing.assert_close(warp(pixels[:1], top_left, 4)[0], pixels[0, :, :4, :4])


def test_read_ahead_yields_every_batch_in_order_and_raises_the_readers_error() -> None:
    assert list(read_ahead(iter(range(7)), depth=2)) == list(range(7))

    def broken():
        yield 1
        raise DataError("cannot read image x.jpg")
    seen = []
    with pytest.raises(DataError, match="x.jpg"):
        for item in read_ahead(broken()):
            seen.append(item)
    assert seen == [1]
    early = read_ahead(iter(range(100)), depth=1)
    assert next(early) == 0
    early.close()                          # the reader stops: nothing left running
    assert not [t for t in threading.enumerate() if t.name == "predecoded-reader"]
