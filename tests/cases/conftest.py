"""The cases tier: whole cases run in-process or as subprocesses on this machine. As a case
entry script does, torchvision's import is prepared first, explicitly
(chipperf_runtime.models.tvision), before any test imports transformers."""

from chipperf_runtime.models.tvision import prepare_torchvision

prepare_torchvision()
