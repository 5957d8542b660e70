"""Write a small generated detection data set in COCO 2017's layout (no download).

Each image is a noisy grey square with one to three (``--max-shapes``) filled shapes: red rectangles, green
discs and blue triangles, category ids 1, 2, 3 ("box", "disc", "triangle"). Every shape is
one COCO annotation: its tight bounding box (``bbox`` = [x, y, width, height], pixels) and
its outline as a polygon (``segmentation``, for instance segmentation: mask_rcnn)::

    <out>/annotations/instances_train2017.json   instances_val2017.json
    <out>/train2017/000000000001.png ...          <out>/val2017/...

The same files the COCO reader of the detection cases reads for real COCO 2017, so CI runs
the code path a real run does. Needs numpy and Pillow only.

    python3 prepare_shapes.py OUT [--train 256] [--val 64] [--size 64] [--max-shapes 3] [--seed 0]
        [--force]
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw

CATEGORIES = [{"id": 1, "name": "box", "supercategory": "shape"},
              {"id": 2, "name": "disc", "supercategory": "shape"},
              {"id": 3, "name": "triangle", "supercategory": "shape"}]
COLOURS = {1: (220, 40, 40), 2: (40, 200, 60), 3: (50, 80, 230)}
SPLITS = ("train", "val")


def shape_box(rng: np.random.Generator, size: int, taken: list[list[int]]) -> list[int] | None:
    """A square-ish box of a quarter to a half of the image that overlaps no earlier box."""
    for _ in range(20):
        w, h = (int(v) for v in rng.integers(size // 4, size // 2 + 1, 2))
        x, y = int(rng.integers(0, size - w + 1)), int(rng.integers(0, size - h + 1))
        if all(x + w <= a or a + c <= x or y + h <= b or b + d <= y for a, b, c, d in taken):
            return [x, y, w, h]
    return None


def draw(canvas: ImageDraw.ImageDraw, category: int, box: list[int]) -> None:
    x, y, w, h = box
    corners = (x, y, x + w - 1, y + h - 1)
    if category == 1:
        canvas.rectangle(corners, fill=COLOURS[1])
    elif category == 2:
        canvas.ellipse(corners, fill=COLOURS[2])
    else:
        canvas.polygon([(x, y + h - 1), (x + w - 1, y + h - 1), (x + w // 2, y)], fill=COLOURS[3])


def outline(category: int, box: list[int]) -> list[float]:
    """The shape's outline as one COCO polygon [x1, y1, x2, y2, ...] (a disc: 24 points)."""
    x, y, w, h = box
    if category == 1:
        points = [(x, y), (x + w, y), (x + w, y + h), (x, y + h)]
    elif category == 2:
        turns = np.linspace(0, 2 * np.pi, 24, endpoint=False)
        points = list(zip(x + w / 2 * (1 + np.cos(turns)), y + h / 2 * (1 + np.sin(turns))))
    else:
        points = [(x, y + h), (x + w, y + h), (x + w / 2, y)]
    return [round(float(v), 2) for point in points for v in point]


def make_image(rng: np.random.Generator, size: int,
               max_shapes: int = 3) -> tuple[Image.Image, list[tuple[int, list[int]]]]:
    grey = rng.integers(90, 170)
    pixels = np.clip(rng.normal(grey, 12, (size, size, 3)), 0, 255).astype(np.uint8)
    image = Image.fromarray(pixels)
    canvas = ImageDraw.Draw(image)
    shapes: list[tuple[int, list[int]]] = []
    for _ in range(int(rng.integers(1, max_shapes + 1))):
        box = shape_box(rng, size, [b for _, b in shapes])
        if box is not None:
            category = int(rng.integers(1, 4))
            draw(canvas, category, box)
            shapes.append((category, box))
    return image, shapes


def write_split(out: Path, split: str, count: int, size: int, rng: np.random.Generator,
                first_id: int, max_shapes: int = 3) -> int:
    folder = out / f"{split}2017"
    folder.mkdir(parents=True)
    images: list[dict[str, object]] = []
    annotations: list[dict[str, object]] = []
    for image_id in range(first_id, first_id + count):
        image, shapes = make_image(rng, size, max_shapes)
        name = f"{image_id:012d}.png"
        image.save(folder / name)
        images.append({"id": image_id, "file_name": name, "width": size, "height": size})
        for category, box in shapes:
            annotations.append({"id": len(annotations) + 1, "image_id": image_id,
                                "category_id": category, "bbox": box, "area": box[2] * box[3],
                                "segmentation": [outline(category, box)], "iscrowd": 0})
    doc = {"info": {"description": f"chipperf generated shapes, {split}"},
           "images": images, "annotations": annotations, "categories": CATEGORIES}
    (out / "annotations" / f"instances_{split}2017.json").write_text(json.dumps(doc))
    return first_id + count


def prepare(out: Path, counts: dict[str, int], size: int, seed: int, max_shapes: int = 3) -> None:
    rng = np.random.default_rng(seed)
    (out / "annotations").mkdir(parents=True)
    next_id = 1
    for split in SPLITS:
        next_id = write_split(out, split, counts[split], size, rng, next_id, max_shapes)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--train", type=int, default=256, help="train images")
    parser.add_argument("--val", type=int, default=64, help="val images")
    parser.add_argument("--size", type=int, default=64, help="image side in pixels (>= 16)")
    parser.add_argument("--max-shapes", type=int, default=3, help="shapes per image, at most (>= 1)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--force", action="store_true", help="replace OUT when it exists")
    args = parser.parse_args(argv)
    if args.size < 16 or args.train < 1 or args.val < 1 or args.max_shapes < 1:
        parser.error("--size must be >= 16 and --train, --val, --max-shapes >= 1")
    if args.out.exists():
        if not args.force:
            print(f"{args.out} exists: pass --force to replace it", file=sys.stderr)
            return 1
        shutil.rmtree(args.out)
    prepare(args.out, {"train": args.train, "val": args.val}, args.size, args.seed, args.max_shapes)
    print(f"wrote {args.train} train and {args.val} val images of {args.size}x{args.size} to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
