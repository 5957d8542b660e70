"""Data-directory checks a case runs before training, with errors that show the layout."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path

from chipperf_runtime.training.driver.errors import DataError

IMAGE_EXTENSIONS = (".jpeg", ".jpg", ".png")

IMAGE_FOLDER_LAYOUT = """\
  <data_dir>/train/<class name>/<image>.{JPEG,jpg,png}
  <data_dir>/val/<class name>/<image>.{JPEG,jpg,png}
(the same class folders in train/ and val/, e.g. ImageNet's n01440764/ ...)"""


def require_dir(path: Path, what: str, layout: str) -> Path:
    path = Path(path)
    if not path.exists():
        raise DataError(f"{what} {path} does not exist; expected layout:\n{layout}")
    if not path.is_dir():
        raise DataError(f"{what} {path} is not a directory; expected layout:\n{layout}")
    return path


def image_files(folder: Path, extensions: Iterable[str] = IMAGE_EXTENSIONS) -> list[Path]:
    exts = {e.lower() for e in extensions}
    return sorted(p for p in folder.iterdir() if p.is_file() and p.suffix.lower() in exts)


def scan_image_folder(data_dir: Path, split: str,
                      extensions: Sequence[str] = IMAGE_EXTENSIONS) -> dict[str, list[Path]]:
    """class name -> sorted image files of ``<data_dir>/<split>``; raises ``DataError`` when
    the split is missing, has no class folders, or a class folder has no images."""
    root = require_dir(Path(data_dir), "data dir", IMAGE_FOLDER_LAYOUT)
    split_dir = require_dir(root / split, f"data dir split '{split}':", IMAGE_FOLDER_LAYOUT)
    classes = sorted(p for p in split_dir.iterdir() if p.is_dir())
    if not classes:
        raise DataError(f"{split_dir} has no class folders; expected layout:\n{IMAGE_FOLDER_LAYOUT}")
    found = {c.name: image_files(c, extensions) for c in classes}
    empty = [name for name, files in found.items() if not files]
    if empty:
        raise DataError(f"{split_dir}: class folder(s) {', '.join(empty[:5])} hold no images "
                        f"({', '.join(extensions)}); expected layout:\n{IMAGE_FOLDER_LAYOUT}")
    return found


def labelled_splits(data_dir: Path) -> tuple[tuple[str, ...], list[tuple[Path, int]],
                                              list[tuple[Path, int]]]:
    """An ImageNet-layout folder's train and val splits as (image, class index) pairs, with
    the sorted class names the indices point into; raises ``DataError`` naming the path and
    the layout when a split is missing or empty, or the splits' classes differ."""
    train = scan_image_folder(data_dir, "train")
    val = scan_image_folder(data_dir, "val")
    require_same_classes(train, val, data_dir)
    classes = tuple(sorted(train))

    def pairs(found: dict[str, list[Path]]) -> list[tuple[Path, int]]:
        return [(path, index) for index, name in enumerate(classes) for path in found[name]]

    return classes, pairs(train), pairs(val)


def require_same_classes(train: Iterable[str], val: Iterable[str], data_dir: Path) -> None:
    train_set, val_set = set(train), set(val)
    if train_set != val_set:
        odd = sorted(train_set ^ val_set)
        raise DataError(f"data dir {data_dir}: train/ and val/ class folders differ "
                        f"({', '.join(odd[:5])}{' ...' if len(odd) > 5 else ''}); expected "
                        f"layout:\n{IMAGE_FOLDER_LAYOUT}")
