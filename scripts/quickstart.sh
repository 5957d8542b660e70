#!/usr/bin/env bash
# Set up this machine as a one-host chipperf cluster and run the default benchmark
# (resnet50 on PyTorch, cpu vendor, scikit-learn's digits in ImageNet layout: a smoke test).
# Debian/Ubuntu, as root. Re-runnable. Results go to result/ under the directory you start it
# from; `chipperf` is linked into /usr/local/bin (or the line to put it on PATH is printed).
set -euo pipefail
HERE="$PWD"
REPO="$(cd "$(dirname "$0")/.." && pwd)"
cd "$REPO"

stop() { echo "quickstart: $*" >&2; exit 1; }

[[ $(id -u) -eq 0 ]] || stop "run as root (it installs Docker and starts its engine): sudo $0"
command -v apt-get >/dev/null \
  || stop "needs apt-get (Debian or Ubuntu); install Docker, debootstrap and python3-venv, then run this again"

export DEBIAN_FRONTEND=noninteractive
need=()
command -v dockerd >/dev/null || need+=(docker.io)
command -v debootstrap >/dev/null || need+=(debootstrap)
command -v python3 >/dev/null || need+=(python3)
python3 -c 'import venv, ensurepip' 2>/dev/null || need+=(python3-venv)
if [ ${#need[@]} -gt 0 ]; then
  APT_LOG="${CHIPPERF_APT_LOG:-/var/log/chipperf-apt.log}"
  echo "installing ${need[*]} with apt-get (its output: $APT_LOG)"
  # apt's and dpkg's lines go to the log; when it fails, its first error is the one message
  if ! { apt-get update -qq && apt-get install -y -qq "${need[@]}" ca-certificates; } >"$APT_LOG" 2>&1; then
    said="$(grep -m1 '^E:' "$APT_LOG" || tail -n1 "$APT_LOG")"
    stop "could not install ${need[*]} with apt-get (${said:-no output}; no network for apt?; $APT_LOG): install them, then run this again"
  fi
fi

if ! docker version >/dev/null 2>&1; then
  echo "starting dockerd (log: /var/log/chipperf-dockerd.log)"
  nohup dockerd >/var/log/chipperf-dockerd.log 2>&1 &
  for _ in $(seq 60); do docker version >/dev/null 2>&1 && break; sleep 1; done
  docker version >/dev/null 2>&1 \
    || stop "dockerd did not answer within 60 s: see /var/log/chipperf-dockerd.log"
fi

# The master needs only requirements.txt; the data extra (scikit-learn, Pillow ...) makes the
# default dataset; the selftest extra is what `chipperf selftest` needs beside torch and its
# torchvision (this .venv has no torch: the cases run in the vendor's image).
[ -x .venv/bin/python ] || python3 -m venv .venv
.venv/bin/python -m pip install -q -e '.[data,selftest]'
DATA=/tmp/chipperf-data/digits
[ -f "$DATA/dataset.json" ] \
  || .venv/bin/python training/benchmarks/resnet50/pytorch/prepare_digits.py --force "$DATA"

# chipperf on PATH: a link to the .venv's script (it runs with the .venv's python).
LINK=/usr/local/bin/chipperf
if [[ ! -e "$LINK" || "$(readlink "$LINK")" == "$REPO/.venv/bin/chipperf" ]]; then
  ln -sfn "$REPO/.venv/bin/chipperf" "$LINK"
  echo "chipperf is on PATH: $LINK -> $REPO/.venv/bin/chipperf"
else
  echo "$LINK is another chipperf; to use this one: source $REPO/.venv/bin/activate"
fi

cd "$HERE"
exec "$REPO/.venv/bin/python" "$REPO/training/run_benchmarks/run.py" "$@"
