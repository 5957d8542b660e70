#!/usr/bin/env bash
# Proves that the README's two commands pass verbatim on a fresh Debian 12 (bookworm) machine.
#
#   tests/fresh_debian/run.sh [--ref REF] [--only quickstart|ci] [--rebuild] [--keep] [--out DIR]
#                             [--tiers 'T ...'] [-k EXPR]
#
# 1. Builds a Debian 12 root filesystem with debootstrap (minbase + python3, python3-venv,
#    python3-pip, git, ca-certificates: what a new user has after installing git) and imports it
#    as an image tagged by a hash of those inputs, so reruns reuse it (--rebuild makes it again).
# 2. Starts that image as a container able to run its own Docker engine (Docker-in-Docker:
#    all capabilities, a private cgroup namespace with the v1 hierarchies mounted afresh inside,
#    anonymous volumes for /var/lib/docker and the simulated hosts' /var/lib/chipperf-sim: on
#    the container's own overlay file system their engines would fall back to the vfs storage
#    driver, which copies a whole image for every container; a real machine has overlay2),
#    with this machine's pip configuration, the local
#    package folders it names and the CA bundle mounted read-only: pip inside sees the mirrors
#    this machine sees, nothing more is installed into the image.
# 3. Clones this repository at REF (default HEAD; committed work only) into /root/chipperf and
#    runs, from there, `./scripts/quickstart.sh` and then `.ci/run`, verbatim, each with
#    `docker exec`, and prints each command's exit status and wall time. --tiers and -k run part
#    of .ci/run (its CI_TIERS and CI_PYTEST_K, written into the command recorded): a partial proof.
#
# Needs root, a working `docker` and `debootstrap` on this machine, and deb.debian.org (or
# DEBIAN_MIRROR) reachable. Logs and the figures go to --out (default /tmp/chipperf-fresh-<ts>):
# quickstart.log, ci.log, results.tsv. The exit status is 0 only when every command run passed.
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
SUITE=bookworm
VARIANT=minbase
INCLUDE=python3,python3-venv,python3-pip,git,ca-certificates
DEBIAN_MIRROR="${DEBIAN_MIRROR:-http://deb.debian.org/debian}"
REF=HEAD
ONLY=""
REBUILD=0
KEEP=0
OUT=""
CI_PREFIX=""

usage() { sed -n '2,25p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; }
die() { echo "fresh_debian: $*" >&2; exit 2; }

while [[ $# -gt 0 ]]; do
    case "$1" in
        --ref) REF="${2:?--ref needs a value}"; shift 2 ;;
        --only) ONLY="${2:?--only needs quickstart or ci}"; shift 2 ;;
        --rebuild) REBUILD=1; shift ;;
        --keep) KEEP=1; shift ;;
        --out) OUT="${2:?--out needs a directory}"; shift 2 ;;
        --tiers) CI_PREFIX+="CI_TIERS='${2?--tiers needs a value}' "; shift 2 ;;
        -k) CI_PREFIX+="CI_PYTEST_K='${2:?-k needs an expression}' "; shift 2 ;;
        -h|--help) usage; exit 0 ;;
        *) die "unknown argument '$1' (see --help)" ;;
    esac
done
case "$ONLY" in ""|quickstart|ci) ;; *) die "--only: '$ONLY' is not quickstart or ci" ;; esac
[[ $(id -u) -eq 0 ]] || die "must run as root (debootstrap, and a container with all capabilities)"
command -v debootstrap >/dev/null || die "debootstrap not found: apt-get install debootstrap"
docker info >/dev/null 2>&1 || die "no Docker engine answers 'docker info': start dockerd first"
SHA="$(git -C "$REPO" rev-parse --verify "$REF^{commit}")" || die "--ref: '$REF' is not a commit in $REPO"
OUT="${OUT:-/tmp/chipperf-fresh-$(date -u +%Y%m%d%H%M%S)}"
mkdir -p "$OUT"
WORK="$(mktemp -d /tmp/chipperf-fresh-work.XXXXXX)"
NAME="chipperf-fresh-$$"

cleanup() {  # the container with its anonymous volumes (the inner engines'
    # images: tens of GB), and the clone; the base image stays (289 MB, reused by key)
    [[ -z "${EXEC_PID:-}" ]] || kill "$EXEC_PID" 2>/dev/null || true
    if [[ $KEEP -eq 1 ]]; then
        echo "kept: container $NAME (docker rm -fv $NAME), clone $WORK"
    else
        docker rm -fv "$NAME" >/dev/null 2>&1 || true
        rm -rf "$WORK"
    fi
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM HUP

remove_stale() {  # containers of earlier runs whose script is gone (killed with -9, machine
    # restarted): without this, their volumes hold tens of GB until someone notices (--keep's
    # containers stay until removed by hand)
    local c pid
    for c in $(docker ps -aq --filter label=chipperf-fresh.pid); do
        pid="$(docker inspect -f '{{index .Config.Labels "chipperf-fresh.pid"}}' "$c")"
        [[ "$(docker inspect -f '{{index .Config.Labels "chipperf-fresh.keep"}}' "$c")" != 1 ]] || continue
        if ! kill -0 "$pid" 2>/dev/null || [[ "$(ps -o args= -p "$pid")" != *fresh_debian/run.sh* ]]; then
            log "removing container $c (and its volumes) of an earlier run (pid $pid is gone)"
            docker rm -fv "$c" >/dev/null
        fi
    done
}

log() { echo "=== [$(date -u +%H:%M:%S)] $*"; }

# ----------------------------------------------------------------------------- base image
base_image() {  # prints the image tag, building it when missing
    local key tag root
    key="$(printf '%s\n' "$SUITE" "$VARIANT" "$INCLUDE" "$DEBIAN_MIRROR" | sha256sum | cut -c1-16)"
    tag="chipperf-fresh/debian-$SUITE:$key"
    if [[ $REBUILD -eq 0 ]] && docker image inspect "$tag" >/dev/null 2>&1; then
        log "base image $tag (cached)" >&2
        echo "$tag"; return
    fi
    root="$WORK/rootfs"
    log "debootstrap $SUITE ($VARIANT, +$INCLUDE) from $DEBIAN_MIRROR" >&2
    debootstrap --variant="$VARIANT" --include="$INCLUDE" "$SUITE" "$root" "$DEBIAN_MIRROR" \
        >"$OUT/debootstrap.log" 2>&1 || { tail -20 "$OUT/debootstrap.log" >&2; die "debootstrap failed (log $OUT/debootstrap.log)"; }
    rm -rf "$root"/var/cache/apt/archives/*.deb "$root"/var/lib/apt/lists/*
    tar -C "$root" -c . | docker import \
        --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
        --change 'ENV LANG=C.UTF-8' --change 'CMD ["/bin/bash"]' - "$tag" >/dev/null
    rm -rf "$root"
    log "base image $tag built" >&2
    echo "$tag"
}

# ----------------------------------------------------------------------------- pip mirrors
pip_mounts() {  # prints -v options: pip config files, the local folders they name, the CA bundle
    local files words p
    # (no pip on this machine: nothing to mount)
    files="$(python3 -m pip config debug 2>/dev/null | sed -n 's/^ *\(\/[^,]*\), exists: True$/\1/p' || true)"
    words="$files $(python3 -m pip config list 2>/dev/null | cut -d= -f2- | tr -d "'" || true)"
    words+=" $(env | sed -n 's/^PIP_[A-Z_]*=//p')"
    for p in $(printf '%s\n' $words | sed 's|^file://||' | grep '^/' || true); do
        [[ -e "$p" ]] || continue
        # a simple index names a folder's simple/ page: mount its parent (the packages' folder)
        [[ "$(basename "$p")" == simple ]] && p="$(dirname "$p")"
        echo "$p"
    done | sort -u | while read -r p; do printf -- '-v\n%s:%s:ro\n' "$p" "$p"; done
}

pip_env() {  # prints -e options for this shell's PIP_* settings
    env | { grep '^PIP_' || true; } | while read -r kv; do printf -- '-e\n%s\n' "$kv"; done
}

# ----------------------------------------------------------------------------- the container
start_container() {  # start_container IMAGE
    local -a opts
    mapfile -t opts < <(pip_mounts; pip_env)
    log "container $NAME from $1; mounted read-only: $(printf '%s ' "${opts[@]}" | grep -o '/[^ ]*:ro' | tr '\n' ' ')"
    docker run -d --name "$NAME" --hostname fresh-debian --init --label "chipperf-fresh.pid=$$" \
        --label "chipperf-fresh.keep=$KEEP" \
        --cap-add ALL --cap-drop SYS_RESOURCE \
        --security-opt seccomp=unconfined --security-opt apparmor=unconfined \
        --device-cgroup-rule='a *:* rwm' --cgroupns=private \
        -v /var/lib/docker -v /var/lib/chipperf-sim -v "$WORK/src:/mnt/src:ro" \
        "${opts[@]}" "$1" sleep infinity >/dev/null
}

# Docker-in-Docker on a cgroup v1 machine: docker gives the container read-only bind mounts of
# its own cgroups; dockerd inside needs each hierarchy writable at /sys/fs/cgroup/<name>, so
# unmount them and mount every hierarchy of this (private) cgroup namespace afresh, grouped as
# the kernel groups them (/proc/self/cgroup), with a link per controller of a shared one.
# A real Debian machine has systemd do this at boot; the repo's scripts rightly do not.
CGROUP_SETUP='set -eu
[ "$(stat -f -c %T /sys/fs/cgroup)" = cgroup2fs ] && { echo "cgroup v2: nothing to mount"; exit 0; }
for m in $(awk "\$2 ~ \"^/sys/fs/cgroup/\" {print \$2}" /proc/self/mounts | sort -r); do umount "$m"; done
umount /sys/fs/cgroup
mount -t tmpfs -o mode=755 cgroup_root /sys/fs/cgroup
while IFS=: read -r id ctrls path; do
    [ -n "$ctrls" ] || continue
    dir=${ctrls#name=}; opts=$ctrls
    case $ctrls in name=*) opts=none,$ctrls ;; esac
    mkdir -p "/sys/fs/cgroup/$dir"
    mount -t cgroup -o "$opts" cgroup "/sys/fs/cgroup/$dir"
    case $dir in *,*) for c in $(echo "$dir" | tr , " "); do ln -sfn "$dir" "/sys/fs/cgroup/$c"; done ;; esac
done < /proc/self/cgroup
mkdir -p /sys/fs/cgroup/unified && mount -t cgroup2 none /sys/fs/cgroup/unified || true
grep " /sys/fs/cgroup" /proc/self/mounts'

# A real machine's /dev (devtmpfs) has the loop devices; docker's /dev for a container has none,
# so `mount -o loop` (the e2e tier's read-only result root: an ext4 image on a loop device)
# fails there with "Operation not permitted". Make the nodes a real machine has. And a real
# machine's root writes sysfs, which docker mounts read-only in a container: the same test
# turns its ext4 read-only as a failing disk does, through /sys/fs/ext4/<dev>/trigger_fs_error
# ("Read-only file system" there otherwise). Mount /sys read-write as a real machine has it.
DEV_SETUP='set -eu
[ -e /dev/loop-control ] || mknod -m 660 /dev/loop-control c 10 237
for i in 0 1 2 3 4 5 6 7; do [ -e /dev/loop$i ] || mknod -m 660 /dev/loop$i b 7 $i; done
ls -l /dev/loop-control /dev/loop0
mount -o remount,rw /sys
grep " /sys " /proc/self/mounts'

run_step() {  # run_step LOGNAME COMMAND: run COMMAND verbatim in /root/chipperf
    local t0 t1 rc=0
    log "run: $2 (log $OUT/$1.log)"
    t0=$SECONDS
    # in the background + wait: a signal then reaches the traps at once (bash defers traps
    # while a foreground child runs); cleanup stops the exec
    docker exec -w /root/chipperf "$NAME" bash -lc "$2" >"$OUT/$1.log" 2>&1 &
    EXEC_PID=$!
    wait "$EXEC_PID" || rc=$?
    EXEC_PID=""
    t1=$SECONDS
    printf '%s\t%d\t%d\n' "$2" "$rc" $((t1 - t0)) >>"$OUT/results.tsv"
    log "done: $2: exit $rc in $((t1 - t0)) s; its last lines:"
    tail -n 25 "$OUT/$1.log"
    [[ $rc -eq 0 ]] || RC_ALL=1
}

# ----------------------------------------------------------------------------- main
# (one function, read whole before it runs: editing this file during a run cannot derail it)
main() {
    log "repo $REPO at $REF ($SHA); logs and figures in $OUT"
    remove_stale
    git clone -q "$REPO" "$WORK/src"
    git -C "$WORK/src" checkout -q --detach "$SHA"
    IMAGE="$(base_image)"
    start_container "$IMAGE"
    docker exec "$NAME" sh -c "$CGROUP_SETUP" >"$OUT/cgroups.log" 2>&1 \
        || { cat "$OUT/cgroups.log" >&2; die "mounting the cgroup hierarchies inside failed"; }
    docker exec "$NAME" sh -c "$DEV_SETUP" >"$OUT/devices.log" 2>&1 \
        || { cat "$OUT/devices.log" >&2; die "making the loop device nodes or a writable /sys inside failed"; }
    docker exec "$NAME" git clone -q /mnt/src /root/chipperf
    docker exec "$NAME" git -C /root/chipperf checkout -q --detach "$SHA"

    printf 'command\texit\twall_s\n' >"$OUT/results.tsv"
    RC_ALL=0
    [[ "$ONLY" == ci ]] || run_step quickstart "./scripts/quickstart.sh"
    if [[ "$ONLY" != quickstart ]]; then
        free_gb=$(df --output=avail -B1G "$(docker info -f '{{.DockerRootDir}}')" | tail -1 | tr -d ' ')
        [[ $free_gb -ge 40 ]] || log "warning: ${free_gb} GB free for Docker data; .ci/run in" \
            "here needs more than 36 GB (it may fail with 'no space left on device')"
        run_step ci "${CI_PREFIX}.ci/run"
    fi

    echo "=== fresh Debian $SUITE, $REF ($SHA):"
    awk -F'\t' '{printf "  %-24s %5s %7s\n", $1, $2, $3}' "$OUT/results.tsv"
    exit $RC_ALL
}
main
