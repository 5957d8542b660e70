"""Write a small COCO-layout detection set for the yolov5 case (CI data, no download).

    python3 prepare_coco.py OUT_DIR [--images 8] [--size 96]

OUT_DIR/val2017/<id>.png: grey images of random sizes (``size`` +- a third) with one to three
filled rectangles of 3 colours; OUT_DIR/annotations/instances_val2017.json: each rectangle as a
COCO box annotation whose category is its colour (ids 1..3), in COCO's own format. Drawn
from ``--seed``: the same arguments write the same files.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path

from PIL import Image, ImageDraw

COLOURS = ((220, 40, 40), (40, 200, 40), (40, 40, 220))


def draw(rng: random.Random, size: int) -> tuple[Image.Image, list[tuple[int, list[int]]]]:
    width, height = (rng.randint(size * 2 // 3, size * 4 // 3) for _ in range(2))
    image = Image.new("RGB", (width, height), (128, 128, 128))
    boxes = []
    for _ in range(rng.randint(1, 3)):
        w, h = rng.randint(width // 6, width // 2), rng.randint(height // 6, height // 2)
        x, y = rng.randint(0, width - w), rng.randint(0, height - h)
        colour = rng.randrange(len(COLOURS))
        ImageDraw.Draw(image).rectangle((x, y, x + w - 1, y + h - 1), fill=COLOURS[colour])
        boxes.append((colour + 1, [x, y, w, h]))
    return image, boxes


def write(out: Path, count: int, size: int, seed: int) -> dict:
    rng = random.Random(seed)
    (out / "val2017").mkdir(parents=True, exist_ok=True)
    (out / "annotations").mkdir(parents=True, exist_ok=True)
    images, annotations = [], []
    for image_id in range(1, count + 1):
        image, boxes = draw(rng, size)
        name = f"{image_id:012d}.png"
        image.save(out / "val2017" / name)
        images.append({"id": image_id, "file_name": name, "width": image.width,
                       "height": image.height})
        for category, box in boxes:
            annotations.append({"id": len(annotations) + 1, "image_id": image_id,
                                "category_id": category, "bbox": box, "iscrowd": 0,
                                "area": box[2] * box[3]})
    coco = {"images": images, "annotations": annotations,
            "categories": [{"id": i + 1, "name": f"colour{i + 1}"} for i in range(len(COLOURS))]}
    (out / "annotations" / "instances_val2017.json").write_text(json.dumps(coco))
    return coco


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("out_dir", type=Path)
    p.add_argument("--images", type=int, default=8)
    p.add_argument("--size", type=int, default=96)
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)
    coco = write(args.out_dir, args.images, args.size, args.seed)
    print(f"wrote {len(coco['images'])} images and {len(coco['annotations'])} boxes to "
          f"{args.out_dir}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
