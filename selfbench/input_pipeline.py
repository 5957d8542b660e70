"""How fast each vision input mode delivers training batches from the host, per loader worker.

    python3 selfbench/input_pipeline.py [--images 1024] [--workers 1] [--batch 64] [--size 224]

Makes an ImageNet-like folder (JPEG, quality 90, 500x375 crops of scikit-learn's two sample
photographs, two classes), then times, over the same images and after one warm-up pass:

- ``real``: imagecls.data's ImageFolder (Pillow decode, random resized crop 8-100 %, flip,
  normalise to float32) through a DataLoader, as ``data_mode = "real"`` trains;
- ``predecoded`` (host part): imagecls.predecoded's uint8 batches read by index from the
  memory-mapped store, through a DataLoader: what the host does per batch with
  ``data_mode = "predecoded"`` (on an accelerator the crop, flip and normalisation then run
  on the device);
- ``predecoded, as the case runs it, transform on this CPU``: imagecls.predecoded's
  DeviceBatches over that loader (with 0 workers its reading thread reads ahead) with the
  batched crop/flip/normalise run here, on the CPU, single-threaded: the device's share of
  the work done by one host core instead, so a lower bound.

It prints images/s per mode and per worker; the per-worker figure times the host's cores is
what a host could feed an accelerator, if the cores scale (they share memory bandwidth). Not
measured on a GPU: the device-side transform's cost on an accelerator is not in these figures.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

import numpy as np  # noqa: E402
import torch  # noqa: E402
from PIL import Image  # noqa: E402
from torch.utils.data import BatchSampler, DataLoader, RandomSampler  # noqa: E402

from chipperf_runtime.training.imagecls.case import loader_options  # noqa: E402
from chipperf_runtime.training.imagecls.data import ImageFolder, read_splits  # noqa: E402
from chipperf_runtime.training.imagecls.predecoded import (  # noqa: E402
    Batches,
    DeviceBatches,
    DeviceTransform,
    Layout,
    make_store,
    open_store,
)


def make_folder(root: Path, images: int) -> None:
    """``images`` JPEGs per split: random 500x375 crops of the two sample photographs."""
    from sklearn.datasets import load_sample_images
    photos = load_sample_images().images
    rng = np.random.default_rng(0)
    for split, count in (("train", images), ("val", max(2, images // 8))):
        for index in range(count):
            photo = photos[index % 2]
            top, left = rng.integers(0, photo.shape[0] - 375), rng.integers(0, photo.shape[1] - 500)
            folder = root / split / f"class{index % 2}"
            folder.mkdir(parents=True, exist_ok=True)
            Image.fromarray(photo[top:top + 375, left:left + 500]).save(folder / f"{index}.jpg",
                                                                        quality=90)


def timed(batches, count: int) -> float:
    """images/s over one pass of ``batches`` after a warm-up pass (workers started, pages read)."""
    for _ in batches:
        pass
    start, seen = time.perf_counter(), 0
    for images, _ in batches:
        seen += images.shape[0]
    assert seen == count, (seen, count)
    return seen / (time.perf_counter() - start)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--images", type=int, default=1024)
    parser.add_argument("--workers", type=int, default=1, help="DataLoader workers (0: in-process)")
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--size", type=int, default=224)
    args = parser.parse_args()
    torch.set_num_threads(1)
    root = Path(tempfile.mkdtemp(prefix="chipperf-input-"))
    try:
        make_folder(root, args.images)
        layout = Layout(args.size, "random_resized_crop_flip", 0.875)
        began = time.perf_counter()
        make_store(root, layout, workers=max(1, args.workers))
        made_s = time.perf_counter() - began
        train, _ = read_splits(root)
        count = args.images - args.images % args.batch
        options = loader_options(args.workers, pin_memory=False)  # as a case on the CPU
        real = DataLoader(ImageFolder(train, args.size, layout.train_augment), args.batch,
                          shuffle=True, drop_last=True, **options)
        store = open_store(root, layout)
        sampler = BatchSampler(RandomSampler(range(store.train_images)), args.batch, drop_last=True)
        predecoded = DataLoader(Batches(store, "train"), batch_size=None, sampler=sampler, **options)
        cpu = torch.device("cpu")
        as_run = DeviceBatches(predecoded, cpu, DeviceTransform(args.size, True, cpu, 0))
        rates = {"real (Pillow decode + augment)": timed(real, count),
                 "predecoded (host part)": timed(predecoded, count),
                 "predecoded as run, transform on CPU": timed(as_run, count)}
    finally:
        shutil.rmtree(root, ignore_errors=True)
    per = max(1, args.workers)
    print(f"{args.images} JPEGs 500x375 -> {args.size} px, batch {args.batch}, "
          f"{args.workers} loader worker(s), torch threads 1; store made in {made_s:.1f} s")
    for name, rate in rates.items():
        print(f"  {name:36s} {rate:9.0f} images/s   {rate / per:9.0f} per worker")
    base = rates["real (Pillow decode + augment)"]
    print(f"  predecoded host part / real: {rates['predecoded (host part)'] / base:.1f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
