#!/usr/bin/env bash
# One device session, prepared to run once: `chipperf selftest` (the four common steps, then
# the accelerator steps: gpt2-medium and Llama-3.2-1B-shape MFU on the shipped <chip>x1x1
# configs, the 32-layer llama3_8b serving point with TPOT beside its HBM floor), everything
# packed into $OUT as it ends.
#
#   CHIPPERF_COMMIT=abc1234 OUT=DIR bash selfbench/gpu_check.sh [SELFTEST_S] [VENDOR]
#   OUT=/tmp/gc bash selfbench/gpu_check.sh 300 cpu        # the rehearsal on a CPU
#
# SELFTEST_S is the selftest's budget (default 480 s); VENDOR defaults to nvidia. The python
# needs the selftest extra (pyproject.toml: numpy, Pillow, tokenizers, MLPerf LoadGen,
# transformers) beside the vendor's torch and torchvision; what it lacks of those and of the
# engine's own dependencies (pyproject.toml: paramiko, docker, SQLAlchemy, ...) comes from
# .whl/gpu-check (git-ignored), each wheel unpacked into a venv over the machine's python
# (below) unless its module already imports. For the device machine (python 3.12, torch, torchvision,
# transformers; no paramiko, docker, SQLAlchemy or LoadGen):
#   pip download paramiko docker PyYAML psutil SQLAlchemy packaging 'mlcommons-loadgen==6.0.17'
#       -d .whl/gpu-check --only-binary=:all: --python-version 3.12
#       --platform manylinux_2_28_x86_64 --platform manylinux2014_x86_64
# and carry .whl/gpu-check with the run.
# PHASES (default "selftest") picks what runs, in this order: selftest, int8 (base/'s INT8 GEMM
# in a bare loop through torch._int_mm and through cuBLASLt called directly at INT8_SIZES, FP8
# beside; then base/'s computation-INT8 through `chipperf run --suite base` with int8_kernel
# INT8_ENGINE_KERNEL; then Inductor's autotune if time is left), profile (case_profile.py on
# gpt2: kernels by class; only when the selftest's gpt2 MFU missed 35 %, or PROFILE_ALWAYS=1),
# serving (the llama3_8b serving point, SERVING_SETS, under cProfile), sdpa (the same point, no
# profiler, once per SDPA_VARIANTS item: the llama3_8b config's sdpa_backends). Optional steps
# start only while DEADLINE_S (default 560 s from the start) leaves them time.
# $OUT gets: env.txt and, per phase, <phase>.log; selftest.tgz, int8-engine.tgz (result dirs,
# summaries, logs), files over 3 MiB left out.
set -u
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
SELFTEST_S=${1:-480}
VENDOR=${2:-nvidia}
PHASES=${PHASES:-selftest}       # also: int8 profile serving sdpa (below)
INT8_SIZES=${INT8_SIZES:-8192 16384}
PROFILE_SETS=${PROFILE_SETS:---set perf_warmup_steps=6 --set timed_steps=6}
SERVING_SETS=${SERVING_SETS:---set engine=eager --set num_layers=2 --set offline_requests=16 --set single_stream_requests=4 --set server_requests=8 --set prompt_tokens_max=512 --set output_tokens_max=32 --set output_tokens_min=16 --set accuracy_requests=2 --set loadgen_min_duration_ms=1000}
CHIP=${CHIP:-$([ "$VENDOR" = cpu ] && echo xeon || echo H100)}
DEVICE=$([ "$VENDOR" = cpu ] && echo cpu || echo cuda)      # CHIPPERF_DEVICE of the bare runs
LLM_CONFIG=$([ "$VENDOR" = cpu ] && echo cpu || echo nvidia)_configuration.yaml
INT8_ENGINE_KERNEL=${INT8_ENGINE_KERNEL:-$([ "$VENDOR" = cpu ] && echo int_mm || echo cublaslt)}
INT8_GOAL_TOPS=${INT8_GOAL_TOPS:-1187.4}   # 60 % of the H100 SXM's 1,979 dense INT8 TOPS
SDPA_VARIANTS=${SDPA_VARIANTS:-all flash,efficient,math}
PROFILE_ALWAYS=${PROFILE_ALWAYS:-0}     # 1: profile gpt2 even when its MFU met the target
DEADLINE_S=${DEADLINE_S:-560}           # optional steps start only with time for them left
OUT=${OUT:?set OUT to an empty folder}
mkdir -p "$OUT"
WORK=/tmp/chipperf-gpu-check
rm -rf "$WORK"
mkdir -p "$WORK"
export PYTHONUNBUFFERED=1 PYTHONDONTWRITEBYTECODE=1 HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 \
    TOKENIZERS_PARALLELISM=false
export TORCHINDUCTOR_CACHE_DIR=$WORK/inductor-cache TRITON_CACHE_DIR=$WORK/triton-cache
T0=$(date +%s)
since() { echo "$(( $(date +%s) - T0 )) s"; }
left() { echo $(( DEADLINE_S - ($(date +%s) - T0) )); }

pack() {  # pack NAME DIR: $OUT/NAME.tgz of DIR, files over 3 MiB left out (named in the log)
    find "$2" -type f -size +3M > "$WORK/big.$1"
    tar -czf "$OUT/$1.tgz" -C "$(dirname "$2")" --exclude-from="$WORK/big.$1" "$(basename "$2")"
    [ -s "$WORK/big.$1" ] && echo "left out of $1.tgz (over 3 MiB): $(tr '\n' ' ' < "$WORK/big.$1")"
    echo "packed $1.tgz ($(du -k "$OUT/$1.tgz" | cut -f1) KiB) at $(since)"
}

check_runs() {  # check_runs LOG DIR...: `chipperf check` of each run dir given, into LOG
    local log=$1 summary
    shift
    for summary in "$@"; do
        [ -e "$summary/summary.json" ] || continue
        timeout 60 python3 -m chipperf.cli check "$summary" >> "$log" 2>&1
        echo "check $summary: exit $?" >> "$log"
    done
}

reference() {  # reference SECONDS ARG...: one bare base/ loop (chipperf_runtime.base.reference)
    CHIPPERF_VENDOR=$VENDOR CHIPPERF_DEVICE=$DEVICE timeout -k 5 "$1" \
        python3 -m chipperf_runtime.base.reference "${@:2}" --seconds 2 >> "$OUT/int8.log" 2>&1
}

serve() {  # serve SECONDS OUT_DIR [PYTHON_ARG ...] [-- CASE_ARG ...]: the llama3_8b serving point
    local seconds=$1 out=$2 py=()
    shift 2
    while [ $# -gt 0 ] && [ "$1" != -- ]; do py+=("$1"); shift; done
    [ $# -gt 0 ] && shift
    # shellcheck disable=SC2086  # SERVING_SETS is a list of words
    CHIPPERF_VENDOR=$VENDOR CHIPPERF_DEVICE=$DEVICE \
        PYTHONPATH=$REPO:$REPO/inference/benchmarks:$PYTHONPATH timeout -k 15 "$seconds" python3 "${py[@]}" \
        inference/benchmarks/llama3_8b/pytorch/run_inference.py --data_dir "$WORK/data/llm-prompts" \
        --extern_config_dir inference/configs/llama3_8b --extern_config_file "$LLM_CONFIG" \
        --output_dir "$out" $SERVING_SETS "$@"
}

{
    echo "chipperf gpu check: commit ${CHIPPERF_COMMIT:-not given (set CHIPPERF_COMMIT: the .git of the device copy may be older than its tree)}, vendor $VENDOR"
    echo "selftest budget $SELFTEST_S s, phases: $PHASES"
    nvidia-smi --query-gpu=name,driver_version,memory.total,power.limit,clocks.max.sm --format=csv 2>&1 | head -3
    nproc; free -g | head -2
    python3 - <<'EOF'
import importlib, time
t = time.time(); import torch
print("torch", torch.__version__, "import", round(time.time() - t, 1), "s; cuda", torch.cuda.is_available(),
      torch.cuda.get_device_name() if torch.cuda.is_available() else "")
for m in ("torchvision", "transformers", "tokenizers", "PIL", "mlperf_loadgen", "pynvml", "paramiko",
          "docker", "sqlalchemy", "yaml", "psutil", "numpy", "packaging"):
    try:
        print(m, getattr(importlib.import_module(m), "__version__", "?"))
    except Exception as exc:
        print(m, "MISSING", exc)
EOF
} > "$OUT/env.txt" 2>&1
# The wheels go into a venv of its own that also sees every package folder of the machine's
# python (a .pth file: that python may itself be a venv, whose packages --system-site-packages
# would not see; pip is not needed): the selftest starts its case processes with the python it
# runs on, so they see the wheels too (a PYTHONPATH would not reach them: the engine sets the
# cases' own).
OUTER_SITES=$(python3 -c 'import sys; print("\n".join(p for p in sys.path if p.endswith(("site-packages", "dist-packages"))))')
python3 -m venv --without-pip "$WORK/venv" >> "$OUT/env.txt" 2>&1 \
    || { echo "python3 -m venv --without-pip failed (see env.txt)"; cat "$OUT/env.txt"; exit 2; }
export PATH=$WORK/venv/bin:$PATH
SITE=$(python3 -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
printf '%s\n' "$OUTER_SITES" > "$SITE/machine-python.pth"
echo "venv $WORK/venv over: $(echo "$OUTER_SITES" | tr '\n' ' ')" >> "$OUT/env.txt"
declare -A MODULE=([pynacl]=nacl [cffi]=_cffi_backend [mlcommons_loadgen]=mlperf_loadgen [pyyaml]=yaml)
for wheel in "$REPO"/.whl/gpu-check/*.whl; do
    [ -e "$wheel" ] || continue
    name=$(basename "$wheel" | cut -d- -f1 | tr 'A-Z' 'a-z')
    python3 -c "import ${MODULE[$name]:-$name}" 2>/dev/null && continue
    python3 -m zipfile -e "$wheel" "$SITE" && echo "unpacked $(basename "$wheel") into $SITE" >> "$OUT/env.txt"
done
cd "$REPO" || exit 2      # the engine imports from the checkout (python -m chipperf.cli)
python3 -c "import chipperf.cli, chipperf.remote.host" >> "$OUT/env.txt" 2>&1 \
    || { echo "chipperf's engine does not import (see env.txt)"; cat "$OUT/env.txt"; exit 2; }
echo "engine imports at $(since)" | tee -a "$OUT/env.txt"

wants() { case " $PHASES " in *" $1 "*) return 0;; esac; return 1; }
data() {  # the serving phases' data (llm-prompts), made once when a phase needs it
    [ -d "$WORK/data/llm-prompts" ] || python3 inference/prepare_data.py --root "$WORK/data" > "$WORK/data.log" 2>&1
}

if wants selftest; then
    timeout -k 15 $(( SELFTEST_S + 45 )) python3 -m chipperf.cli selftest --vendor "$VENDOR" \
        --budget "$SELFTEST_S" --result-root "$WORK/selftest" --data-root "$WORK/data" > "$OUT/selftest.log" 2>&1
    echo "selftest exit $? (0 ok, 1 failed or suspect, 3 incomplete) at $(since)" | tee -a "$OUT/selftest.log"
    check_runs "$OUT/selftest.log" "$WORK"/selftest/selftest*/*/run*
    pack selftest "$WORK/selftest" >> "$OUT/selftest.log"
    tail -25 "$OUT/selftest.log"
fi

if wants int8; then   # base/'s INT8 GEMM: torch._int_mm, cuBLASLt called directly, Inductor's autotune
    for size in $INT8_SIZES; do
        for kernel in int_mm cublaslt; do
            echo "== INT8 $size^3 $kernel" >> "$OUT/int8.log"
            reference 60 gemm INT8 --size "$size" --int8-kernel "$kernel"
        done
    done
    first=${INT8_SIZES%% *}
    reference 60 gemm FP8 --size "$first"
    # the product's own path: base/'s computation-INT8 through `chipperf run --suite base`, the
    # vendor config's int8_kernel set to INT8_ENGINE_KERNEL in this copy
    sed -i "s/^  int8_kernel: .*/  int8_kernel: $INT8_ENGINE_KERNEL/" \
        "base/configs/vendor_config/${VENDOR}_configuration.yaml"
    mkdir -p "$WORK/int8-engine"
    cat > "$WORK/int8-host.yaml" <<EOF2
HOSTS: ["127.0.0.1"]
MASTER_PORT: "29563"
VENDOR: "$VENDOR"
CHIP: "$CHIP"
WORK_ROOT: "$WORK/int8-work"
FLAGPERF_LOG_PATH: "$WORK/int8-engine"
IN_CONTAINER_LAUNCH: true
CLEAR_CACHES: false
SHM_SIZE: "1g"
ROUND_TIMEOUT: 120
MONITOR_INTERVAL: 1
CASES:
  "computation-INT8": "pytorch_2.13"
EOF2
    timeout -k 15 150 python3 -m chipperf.cli run --suite base --host-config "$WORK/int8-host.yaml" \
        >> "$OUT/int8.log" 2>&1
    echo "base computation-INT8 ($INT8_ENGINE_KERNEL) exit $? at $(since)" | tee -a "$OUT/int8.log"
    check_runs "$OUT/int8.log" "$WORK"/int8-engine/run*
    pack int8-engine "$WORK/int8-engine" >> "$OUT/int8.log"
    best=$(python3 -c "import json, sys; print(max([json.loads(l)['value'] for l in open(sys.argv[1]) if l.startswith('{') and '(cublaslt)' in l] or [0]))" "$OUT/int8.log")
    echo "best cublaslt: $best TOPS (goal $INT8_GOAL_TOPS)" | tee -a "$OUT/int8.log"
    # Inductor's max-autotune (Triton templates beside cuBLASLt), when cuBLASLt fell short
    if python3 -c "import sys; sys.exit($best >= $INT8_GOAL_TOPS)" && [ "$(left)" -gt 380 ]; then
        echo "== INT8 $first^3 inductor" >> "$OUT/int8.log"
        reference 120 gemm INT8 --size "$first" --int8-kernel inductor
    fi
    echo "int8 done at $(since)" | tee -a "$OUT/int8.log"
    grep -v "^==" "$OUT/int8.log" | grep -v "^ " | cut -c1-220 | tail -30
fi

gpt2_mfu() {  # the selftest's gpt2 MFU (the median of its counted rounds), or 0
    python3 - "$WORK/selftest" <<'EOF2'
import glob, json, sys
found = sorted(glob.glob(f"{sys.argv[1]}/selftest*/selftest.json"))
rows = json.load(open(found[-1]))["rows"] if found else []
print(next((r["share_of_spec"] for r in rows if r["step"] == "gpt2" and r["share_of_spec"]), 0))
EOF2
}
gpt2_best=$(gpt2_mfu)

# where gpt2-medium's step goes (kernels by class, GPU busy share): when the selftest's missed 35 %
if wants profile && { [ "$PROFILE_ALWAYS" = 1 ] || python3 -c "import sys; sys.exit($gpt2_best >= 0.35)"; }; then
    if [ "$(left)" -gt 150 ]; then
        gpt2_data=$WORK/gpt2-data
        [ -d "$gpt2_data" ] || python3 training/benchmarks/gpt2/pytorch/prepare_data.py --output "$gpt2_data" > "$WORK/gpt2-data.log" 2>&1
        timeout -k 15 240 python3 selfbench/case_profile.py --cases gpt2-pytorch --vendor "$VENDOR" \
            --chip "$CHIP" --data-dir "$gpt2_data" --skip 6 --top 25 $PROFILE_SETS > "$OUT/profile.log" 2>&1
        echo "profile exit $? at $(since)" | tee -a "$OUT/profile.log"
        tail -30 "$OUT/profile.log" | cut -c1-200
    else
        echo "profile skipped: $(left) s left" | tee "$OUT/profile.log"
    fi
fi

if wants serving && [ "$(left)" -lt 150 ]; then
    echo "serving skipped: $(left) s left" | tee "$OUT/serving.log"
elif wants serving; then  # the serving point under cProfile: where the host's time goes
    data
    serve 240 "$WORK/serving-out" -m cProfile -o "$WORK/serving.prof" > "$OUT/serving.log" 2>&1
    echo "serving exit $? at $(since)" | tee -a "$OUT/serving.log"
    python3 -c "import pstats, sys; pstats.Stats(sys.argv[1], stream=sys.stdout).sort_stats('tottime').print_stats(30)" \
        "$WORK/serving.prof" >> "$OUT/serving.log" 2>&1
    grep -h '"event": "FINISHED"' "$WORK"/serving-out/*.log "$WORK"/serving-out/*/*.log 2>/dev/null | cut -c1-600 >> "$OUT/serving.log"
    tail -45 "$OUT/serving.log" | cut -c1-200
fi
if wants sdpa; then  # the serving point once per SDPA_VARIANTS item (sdpa_backends): TTFT, TPOT
    data
    for variant in $SDPA_VARIANTS; do
        [ "$(left)" -gt 60 ] || { echo "sdpa $variant skipped: $(left) s left" | tee -a "$OUT/sdpa.log"; continue; }
        echo "== sdpa_backends=$variant" >> "$OUT/sdpa.log"
        serve 120 "$WORK/sdpa-$variant" -- --set "sdpa_backends=$variant" > "$WORK/sdpa-$variant.log" 2>&1
        echo "exit $? at $(since)" >> "$OUT/sdpa.log"
        grep '"event": "FINISHED"' "$WORK/sdpa-$variant.log" | python3 -c "
import json, sys
line = sys.stdin.read()
value = json.loads(line[line.index('{'):])['value'] if line.strip() else {}
for name, point in (value.get('serving') or {}).items():
    if isinstance(point, dict) and 'tpot_ms' in point:
        print(f'{name}: tokens/s {point.get(\"tokens_per_s\", 0):,.1f}, TTFT p50 {point[\"ttft_ms\"][\"p50\"]:.2f} ms, '
              f'TPOT p50 {point[\"tpot_ms\"][\"p50\"]:.2f} ms, harness share {point.get(\"harness_share\", 0):.3f}')
print('e2e', value.get('e2e_time_s'), 'engine', value.get('engine'))
" >> "$OUT/sdpa.log" 2>&1
        tail -3 "$WORK/sdpa-$variant.log" | cut -c1-300 >> "$OUT/sdpa.log"
    done
    cat "$OUT/sdpa.log"
fi
echo "done at $(since)"
