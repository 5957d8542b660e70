'''Test config: which vendor and cases to run (FlagPerf form, read as data).'''
# Vendor: a module in chipperf_runtime/vendors/ with image folders under training/<vendor>/docker_image/.
VENDOR = "cpu"

# Cases: "model:framework:chip:nnodes:nproc:repeat" -> dataset path on every host.
# The default dataset is scikit-learn's handwritten digits in ImageNet layout, made by
#   python3 training/benchmarks/resnet50/pytorch/prepare_digits.py /tmp/chipperf-data/digits
CASES = {
    "resnet50:pytorch_2.13:xeon:1:1:1": "/tmp/chipperf-data/digits",
}

# Image builds: pip settings passed through so builds work behind mirrors and offline.
# PIP_INDEX_URL = "https://mirror.example.com/pypi/simple"
# PIP_FIND_LINKS = ["/opt/wheels"]          # directories are copied into the build context
# WHEELHOUSE = "/opt/wheels"
# CA_BUNDLE = "/etc/ssl/certs/ca-certificates.crt"

SHM_SIZE = "4g"
# Extra docker options, CLI form (e.g. " --gpus all" for nvidia; the vendor adds its own).
ACCE_CONTAINER_OPT = ""
CLEAR_CACHES = False

# Deadline of one round, and monitor sampling interval, in seconds.
ROUND_TIMEOUT = 3600
MONITOR_INTERVAL = 1

# Results go to <RESULT_ROOT>/run<YYYYmmddHHMMSS>/ (relative to where you start the run).
RESULT_ROOT = "result"
