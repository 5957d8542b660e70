"""The image folders (``folders.py``) read with tf.data.

Training images are randomly crop-resized (8%-100% of the area, 3/4-4/3 aspect) and flipped
(``train_augment = "random_resized_crop_flip"``, the ImageNet recipe) or only resized
(``"resize"``). Validation images are resized so the short side is
``image_size / val_crop_ratio`` and center-cropped. Pixels are normalised with the ImageNet
mean and std.
"""

from __future__ import annotations

import numpy as np
import tensorflow as tf
from folders import Shard, Split, epoch_indices, val_indices

from chipperf_runtime.training.driver import DataError

MEAN = (0.485, 0.456, 0.406)
STD = (0.229, 0.224, 0.225)


def check_decodable(split: Split, name: str) -> None:
    """Decode the first image of ``split`` so a malformed file fails before training."""
    path = split.paths[0]
    try:
        decode(tf.io.read_file(path))
    except (tf.errors.OpError, ValueError) as exc:
        raise DataError(f"{name} image {path} cannot be decoded as JPEG/PNG: "
                        f"{getattr(exc, 'message', exc)}") from None


def decode(contents: tf.Tensor) -> tf.Tensor:
    """JPEG or PNG bytes -> float32 HxWx3 in [0, 1] (grayscale is repeated to RGB)."""
    image = tf.io.decode_image(contents, channels=3, expand_animations=False)
    return tf.image.convert_image_dtype(image, tf.float32)


def normalize(image: tf.Tensor) -> tf.Tensor:
    return (image - tf.constant(MEAN)) / tf.constant(STD)


def random_resized_crop(image: tf.Tensor, size: int) -> tf.Tensor:
    begin, extent, _ = tf.image.sample_distorted_bounding_box(
        tf.shape(image), bounding_boxes=tf.constant([[[0.0, 0.0, 1.0, 1.0]]]),
        min_object_covered=0.0, aspect_ratio_range=(3 / 4, 4 / 3), area_range=(0.08, 1.0),
        max_attempts=10, use_image_if_no_bounding_boxes=True)
    crop = tf.slice(image, begin, extent)
    return tf.image.random_flip_left_right(tf.image.resize(crop, (size, size)))


def center_crop(image: tf.Tensor, size: int, crop_ratio: float) -> tf.Tensor:
    shape = tf.cast(tf.shape(image)[:2], tf.float32)
    short = tf.round(size / crop_ratio)
    scale = short / tf.reduce_min(shape)
    resized_hw = tf.maximum(tf.cast(tf.round(shape * scale), tf.int32), tf.cast(short, tf.int32))
    image = tf.image.resize(image, resized_hw)
    top = (resized_hw[0] - size) // 2
    left = (resized_hw[1] - size) // 2
    return tf.image.crop_to_bounding_box(image, top, left, size, size)


def train_transform(augment: str, size: int):
    def transform(path: tf.Tensor, label: tf.Tensor) -> tuple[tf.Tensor, tf.Tensor]:
        image = decode(tf.io.read_file(path))
        if augment == "random_resized_crop_flip":
            image = random_resized_crop(image, size)
        else:
            image = tf.image.resize(image, (size, size))
        return normalize(image), label
    return transform


def val_transform(size: int, crop_ratio: float):
    def transform(path: tf.Tensor, label: tf.Tensor) -> tuple[tf.Tensor, tf.Tensor]:
        return normalize(center_crop(decode(tf.io.read_file(path)), size, crop_ratio)), label
    return transform


def train_dataset(split: Split, shard: Shard, per_rank_batch: int, image_size: int,
                  augment: str, seed: int, epoch: int) -> tf.data.Dataset:
    """One epoch of this rank's training batches (full batches only)."""
    index = epoch_indices(len(split), shard, seed, epoch)
    paths = np.asarray(split.paths)[index]
    labels = np.asarray(split.labels, dtype=np.int32)[index]
    return (tf.data.Dataset.from_tensor_slices((paths, labels))
            .map(train_transform(augment, image_size), num_parallel_calls=tf.data.AUTOTUNE)
            .batch(per_rank_batch, drop_remainder=True)
            .prefetch(tf.data.AUTOTUNE))


def val_dataset(split: Split, shard: Shard, batch: int, image_size: int,
                crop_ratio: float) -> tf.data.Dataset:
    """This rank's disjoint shard of val (every image is evaluated by exactly one rank)."""
    index = val_indices(len(split), shard)
    paths = np.asarray(split.paths, dtype=str)[index]
    labels = np.asarray(split.labels, dtype=np.int32)[index]
    return (tf.data.Dataset.from_tensor_slices((paths, labels))
            .map(val_transform(image_size, crop_ratio), num_parallel_calls=tf.data.AUTOTUNE)
            .batch(batch)
            .prefetch(tf.data.AUTOTUNE))
