"""Shared code of the PyTorch image-classification cases (resnet50, vit, mobilenetv2,
efficientnet, swin_transformer): the image folders, the loop and the case's main. A case
folder holds only its model (``imagecls.case.ImageModel``) and its configs. See README.md."""
