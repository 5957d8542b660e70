#!/usr/bin/env bash
# One device session, prepared to run once: `chipperf selftest`, then issue 25's single-chip
# targets (benchmarks/gpu_targets.py), everything packed into $OUT as it ends.
#
#   CHIPPERF_COMMIT=abc1234 OUT=DIR bash benchmarks/gpu_check.sh [SELFTEST_S] [TARGETS_S] [VENDOR] [STEP ...]
#   OUT=/tmp/gc bash benchmarks/gpu_check.sh 300 300 cpu        # the rehearsal on a CPU
#
# SELFTEST_S and TARGETS_S are the two programs' own budgets (default 270 and 240 s); VENDOR
# defaults to nvidia; STEPs are gpu_targets.py's steps, in the order to run them (default:
# gpt2 resnet50_synth llama1b infer_resnet50 resnet50_predec: what the budget cuts comes last).
# A python without paramiko or docker gets them from .whl/gpu-check (git-ignored; made by the
# command in gpu_targets.py's docstring), unpacked into a private folder on PYTHONPATH.
# $OUT gets: env.txt, selftest.log, selftest.tgz (its result dirs), targets.log,
# targets.tgz (gpu_targets.py's summary, logs and result dirs); files over 3 MiB left out.
set -u
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
SELFTEST_S=${1:-270}
TARGETS_S=${2:-240}
VENDOR=${3:-nvidia}
shift $(( $# < 3 ? $# : 3 ))
STEPS=${*:-gpt2 resnet50_synth llama1b infer_resnet50 resnet50_predec}
OUT=${OUT:?set OUT to an empty folder}
mkdir -p "$OUT"
WORK=/tmp/chipperf-gpu-check
rm -rf "$WORK"
mkdir -p "$WORK/site"
export PYTHONUNBUFFERED=1 PYTHONDONTWRITEBYTECODE=1 HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 \
    TOKENIZERS_PARALLELISM=false
export TORCHINDUCTOR_CACHE_DIR=$WORK/inductor-cache TRITON_CACHE_DIR=$WORK/triton-cache
T0=$(date +%s)
since() { echo "$(( $(date +%s) - T0 )) s"; }

pack() {  # pack NAME DIR: $OUT/NAME.tgz of DIR, files over 3 MiB left out (named in the log)
    find "$2" -type f -size +3M > "$WORK/big.$1"
    tar -czf "$OUT/$1.tgz" -C "$(dirname "$2")" --exclude-from="$WORK/big.$1" "$(basename "$2")"
    [ -s "$WORK/big.$1" ] && echo "left out of $1.tgz (over 3 MiB): $(tr '\n' ' ' < "$WORK/big.$1")"
    echo "packed $1.tgz ($(du -k "$OUT/$1.tgz" | cut -f1) KiB) at $(since)"
}

{
    echo "chipperf gpu check: commit ${CHIPPERF_COMMIT:-not given (set CHIPPERF_COMMIT: the .git of the device copy may be older than its tree)}, vendor $VENDOR"
    echo "selftest budget $SELFTEST_S s, targets budget $TARGETS_S s, steps: $STEPS"
    nvidia-smi --query-gpu=name,driver_version,memory.total,power.limit,clocks.max.sm --format=csv 2>&1 | head -3
    nproc; free -g | head -2
    python3 - <<'EOF'
import importlib, time
t = time.time(); import torch
print("torch", torch.__version__, "import", round(time.time() - t, 1), "s; cuda", torch.cuda.is_available(),
      torch.cuda.get_device_name() if torch.cuda.is_available() else "")
for m in ("torchvision", "transformers", "pynvml", "paramiko", "docker", "yaml", "psutil", "numpy"):
    try:
        print(m, getattr(importlib.import_module(m), "__version__", "?"))
    except Exception as exc:
        print(m, "MISSING", exc)
EOF
} > "$OUT/env.txt" 2>&1
declare -A MODULE=([pynacl]=nacl [cffi]=_cffi_backend)
for wheel in "$REPO"/.whl/gpu-check/*.whl; do
    [ -e "$wheel" ] || continue
    name=$(basename "$wheel" | cut -d- -f1 | tr 'A-Z' 'a-z')
    python3 -c "import ${MODULE[$name]:-$name}" 2>/dev/null || python3 -m zipfile -e "$wheel" "$WORK/site"
done
export PYTHONPATH=$WORK/site${PYTHONPATH:+:$PYTHONPATH}
python3 -c "import chipperf.cli, chipperf.remote.host" >> "$OUT/env.txt" 2>&1 \
    || { echo "chipperf's engine does not import (see env.txt)"; cat "$OUT/env.txt"; exit 2; }
echo "engine imports at $(since)" | tee -a "$OUT/env.txt"

cd "$REPO" || exit 2
timeout -k 15 $(( SELFTEST_S + 45 )) python3 -m chipperf.cli selftest --vendor "$VENDOR" \
    --budget "$SELFTEST_S" --result-root "$WORK/selftest" --data-root "$WORK/data" > "$OUT/selftest.log" 2>&1
echo "selftest exit $? at $(since)" | tee -a "$OUT/selftest.log"
for summary in "$WORK"/selftest/selftest*/*/run*/summary.json; do
    [ -e "$summary" ] || continue
    timeout 60 python3 -m chipperf.cli check "$(dirname "$summary")" >> "$OUT/selftest.log" 2>&1
    echo "check $(dirname "$summary"): exit $?" >> "$OUT/selftest.log"
done
pack selftest "$WORK/selftest" >> "$OUT/selftest.log"
tail -25 "$OUT/selftest.log"

# shellcheck disable=SC2086  # STEPS is a list of words
timeout -k 15 $(( TARGETS_S + 45 )) python3 benchmarks/gpu_targets.py --vendor "$VENDOR" \
    --out "$WORK/targets" --work "$WORK/targets-work" --budget "$TARGETS_S" --steps $STEPS \
    > "$OUT/targets.log" 2>&1
echo "gpu_targets exit $? at $(since)" | tee -a "$OUT/targets.log"
pack targets "$WORK/targets" >> "$OUT/targets.log"
tail -20 "$OUT/targets.log"
