"""Shared code of the PyTorch detection cases (retinanet, faster_rcnn): COCO 2017 data,
torchvision's detectors built from scratch, the loop, COCO mAP and FINISHED. See README.md."""
