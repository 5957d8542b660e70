#!/usr/bin/env bash
# Set up this machine as a one-host chipperf cluster and run the default benchmark
# (resnet50 on PyTorch, cpu vendor, scikit-learn's digits in ImageNet layout).
# Debian/Ubuntu, as root. Re-runnable.
set -euo pipefail
cd "$(dirname "$0")/.."

export DEBIAN_FRONTEND=noninteractive
need=()
command -v dockerd >/dev/null || need+=(docker.io)
command -v debootstrap >/dev/null || need+=(debootstrap)
command -v python3 >/dev/null || need+=(python3)
python3 -c 'import venv, ensurepip' 2>/dev/null || need+=(python3-venv)
if [ ${#need[@]} -gt 0 ]; then
  apt-get update -qq
  apt-get install -y -qq "${need[@]}" ca-certificates
fi

if ! docker version >/dev/null 2>&1; then
  echo "starting dockerd (log: /var/log/chipperf-dockerd.log)"
  nohup dockerd >/var/log/chipperf-dockerd.log 2>&1 &
  for _ in $(seq 60); do docker version >/dev/null 2>&1 && break; sleep 1; done
  docker version >/dev/null
fi

# The master needs only requirements.txt; scikit-learn and Pillow make the default dataset.
[ -x .venv/bin/python ] || python3 -m venv .venv
.venv/bin/python -m pip install -q -e . scikit-learn Pillow numpy
DATA=/tmp/chipperf-data/digits
[ -d "$DATA/train" ] || .venv/bin/python training/benchmarks/resnet50/pytorch/prepare_digits.py "$DATA"

cd training
exec ../.venv/bin/python run_benchmarks/run.py "$@"
