#!/usr/bin/env python3
"""Simulated multi-host cluster for chipperf tests (stdlib only, run as root).

Each simulated host hI is a network namespace ``chipperf-hI`` attached to the
bridge ``cpbr0`` (10.231.0.1/24 in the root namespace) with address
10.231.0.(10+I), running its own sshd, containerd and dockerd inside that
namespace.  Containers started with ``network_mode="host"`` on hI live in hI's
namespace, so containers on different simulated hosts talk over 10.231.0.x like
containers on a real small cluster.

    simcluster.py up [--hosts N]     build/repair hosts h1..hN (idempotent)
    simcluster.py up --only h4,h5    build/repair those hosts only (others untouched)
    simcluster.py down [--purge]     remove everything (--purge: also /var/lib data)
    simcluster.py status             JSON health report (exit 0 when all healthy)
    simcluster.py ensure-dockerd     start the root-namespace dockerd if it is not answering
    simcluster.py ensure-minbase     build the debootstrap image chipperf-sim/minbase:test
                                     in the root daemon if missing
    simcluster.py load-image IMAGE [--hosts h1,h2]
                                     copy an image from the root daemon into host daemons
    simcluster.py cpu-share --cpus X [--hosts h5]
                                     limit every host (or those named) to X CPUs (0: no limit)
    simcluster.py slurm-up [--nodes h7,h8]
                                     munged + slurmctld (10.231.0.1) + slurmd in each named host
    simcluster.py slurm-down         stop slurmctld and the slurmds

CPU: the hosts share this machine's cores. Each host's daemons, ssh sessions and
containers sit in one cgroup (v1 ``cpu`` and ``cpuacct`` hierarchies:
``chipperf-sim/hI/{daemons,containers}``), so ``cpu-share`` can give every host the
same fixed share (as if each had its own, smaller machine) and ``cpuacct.usage`` of
``chipperf-sim/hI`` says what each host spent.

State: /run/chipperf-sim/cluster.json (see README.md).
"""

from __future__ import annotations

import argparse
import concurrent.futures
import contextlib
import fcntl
import http.client
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time

NAME_PREFIX = "chipperf-"
BRIDGE = "cpbr0"
SUBNET_PREFIX = "10.231.0."
BRIDGE_ADDR = SUBNET_PREFIX + "1"
PREFIXLEN = 24
BRIDGE_MAC = "02:ce:0a:e7:00:01"
RUN_DIR = "/run/chipperf-sim"
LIB_DIR = "/var/lib/chipperf-sim"
STATE_FILE = os.path.join(RUN_DIR, "cluster.json")
LOCK_FILE = os.path.join(RUN_DIR, ".lock")
SSH_DIR = "/root/.ssh"
SSH_KEY = os.path.join(SSH_DIR, "chipperf_sim_ed25519")
KNOWN_HOSTS = os.path.join(SSH_DIR, "known_hosts")
AUTHORIZED_KEYS = os.path.join(SSH_DIR, "authorized_keys")
SSH_CONFIG = os.path.join(SSH_DIR, "config")
SSH_CONFIG_BEGIN = "# >>> chipperf-sim (managed by tests/simcluster/simcluster.py) >>>"
SSH_CONFIG_END = "# <<< chipperf-sim <<<"
ROOT_DOCKER_SOCK = "/var/run/docker.sock"
ROOT_DOCKERD_LOG = "/var/log/chipperf-dockerd.log"
FORWARD_RULE = ["FORWARD", "-i", BRIDGE, "-o", BRIDGE, "-m", "comment",
                "--comment", "chipperf-sim", "-j", "ACCEPT"]
MINBASE_IMAGE = "chipperf-sim/minbase:test"
MAX_HOSTS = 200
CGROUP_V1 = "/sys/fs/cgroup"
CGROUP_NAME = "chipperf-sim"
CFS_PERIOD_US = 100_000
REQUIRED_BINARIES = ["ip", "nsenter", "sshd", "ssh", "ssh-keygen", "ssh-keyscan",
                     "dockerd", "containerd", "containerd-shim-runc-v2", "runc", "docker"]

_T0 = time.monotonic()


class SimError(Exception):
    """A failure with the step, the host and (optionally) a log to show."""

    def __init__(self, step, host=None, detail="", log=None):
        self.step, self.host, self.detail, self.log = step, host, detail, log
        super().__init__(self.render())

    def render(self):
        where = f"[{self.host}] " if self.host else ""
        msg = f"{where}{self.step} failed: {self.detail}".rstrip()
        if self.log:
            msg += f"\n--- last lines of {self.log} ---\n{tail(self.log)}"
        return msg


def log(msg, host=None):
    where = f"[{host}] " if host else ""
    print(f"[simcluster {time.monotonic() - _T0:6.1f}s] {where}{msg}", file=sys.stderr, flush=True)


def tail(path, lines=25):
    try:
        with open(path, "rb") as f:
            f.seek(0, os.SEEK_END)
            f.seek(max(0, f.tell() - 16384))
            data = f.read().decode("utf-8", "replace").splitlines()
        return "\n".join(data[-lines:]) or "(empty)"
    except OSError as e:
        return f"(cannot read: {e})"


def read_text(path, default=None):
    """File contents; default (when given) if it does not exist."""
    try:
        with open(path) as f:
            return f.read()
    except FileNotFoundError:
        if default is None:
            raise
        return default


def run_quiet(argv):
    """Run argv, capture output as text, never raise on exit status."""
    return subprocess.run(argv, check=False, capture_output=True, text=True, stdin=subprocess.DEVNULL)


def sh(argv, step, host=None, check=True, timeout=60, input=None, log_path=None):
    """Run argv (a list), return CompletedProcess; raise SimError on failure."""
    try:
        p = subprocess.run(argv, check=False, capture_output=True, text=True, timeout=timeout, input=input,
                           stdin=None if input is not None else subprocess.DEVNULL)
    except FileNotFoundError:
        raise SimError(step, host, f"command not found: {argv[0]}") from None
    except subprocess.TimeoutExpired:
        raise SimError(step, host, f"timed out after {timeout}s: {' '.join(argv)}", log_path) from None
    if check and p.returncode != 0:
        out = (p.stderr.strip() or p.stdout.strip())[-2000:]
        raise SimError(step, host, f"`{' '.join(argv)}` exited {p.returncode}: {out}", log_path)
    return p


# --------------------------------------------------------------------------- hosts

class Host:
    def __init__(self, index):
        if not 1 <= index <= MAX_HOSTS:
            raise SimError("parse host", detail=f"host index {index} out of range 1..{MAX_HOSTS}")
        self.index = index
        self.name = f"h{index}"
        self.netns = f"{NAME_PREFIX}{self.name}"
        self.netns_path = f"/var/run/netns/{self.netns}"
        self.address = f"{SUBNET_PREFIX}{10 + index}"
        self.veth = f"cpv-{self.name}"          # root-namespace end, enslaved to the bridge
        # Fixed MACs: a rebuilt host keeps its MAC, so neighbour (ARP) entries cached by the
        # root namespace and the other hosts stay valid (else ~10 s of unreachability).
        self.mac = f"02:ce:0a:e7:00:{10 + index:02x}"
        self.veth_mac = f"02:ce:0a:e7:01:{10 + index:02x}"
        self.run = os.path.join(RUN_DIR, self.name)
        self.lib = os.path.join(LIB_DIR, self.name)
        self.docker_sock = os.path.join(self.run, "docker.sock")
        self.docker_host = f"unix://{self.docker_sock}"
        self.data_root = os.path.join(self.lib, "docker")
        self.exec_root = os.path.join(self.run, "exec")
        self.dockerd_pid = os.path.join(self.run, "docker.pid")
        self.dockerd_log = os.path.join(self.run, "dockerd.log")
        self.daemon_json = os.path.join(self.run, "daemon.json")
        self.ctd_dir = os.path.join(self.run, "containerd")
        self.ctd_sock = os.path.join(self.ctd_dir, "containerd.sock")
        self.ctd_conf = os.path.join(self.run, "containerd.toml")
        self.ctd_pid = os.path.join(self.run, "containerd.pid")
        self.ctd_log = os.path.join(self.run, "containerd.log")
        self.sshd_conf = os.path.join(self.run, "sshd_config")
        self.sshd_pid = os.path.join(self.run, "sshd.pid")
        self.sshd_log = os.path.join(self.run, "sshd.log")
        self.host_key = os.path.join(self.run, "ssh_host_ed25519_key")
        self.cgroup = f"{CGROUP_NAME}/{self.name}"   # relative to a hierarchy's root

    @classmethod
    def from_name(cls, name):
        m = re.fullmatch(r"h(\d+)", name)
        if not m:
            raise SimError("parse host", detail=f"bad host name {name!r} (want h1, h2, ...)")
        return cls(int(m.group(1)))

    def state(self):
        return {"name": self.name, "address": self.address, "ssh_port": 22,
                "docker_host": self.docker_host, "netns": self.netns,
                "cpuacct": cgroup_dir("cpuacct", self) if cgroups_usable() else None}


def netns_ino(path):
    try:
        st = os.stat(path)
        return (st.st_dev, st.st_ino)
    except OSError:
        return None


def pids_in_netns(ns_path):
    """All pids whose network namespace is the one bound at ns_path."""
    ino = netns_ino(ns_path)
    if ino is None:
        return []
    out = []
    for d in os.listdir("/proc"):
        if d.isdigit() and int(d) != os.getpid() and netns_ino(f"/proc/{d}/ns/net") == ino:
            out.append(int(d))
    return out


def read_pid(pidfile, must_contain):
    """pid from pidfile if that process is alive and its cmdline mentions must_contain."""
    try:
        with open(pidfile) as f:
            pid = int(f.read().strip())
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            cmd = f.read().replace(b"\0", b" ").decode("utf-8", "replace")
    except (OSError, ValueError):
        return None
    return pid if must_contain in cmd else None


def pid_in_ns(pid, h):
    return pid is not None and netns_ino(f"/proc/{pid}/ns/net") == netns_ino(h.netns_path)


def kill_pid(pid, timeout=15.0):
    """SIGTERM, wait, SIGKILL. Returns once the pid is gone (or we gave up)."""
    if pid is None:
        return
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not os.path.exists(f"/proc/{pid}") or _is_zombie(pid):
            return
        time.sleep(0.1)
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGKILL)
    time.sleep(0.2)


def _is_zombie(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] == "Z"
    except OSError:
        return True


class _UnixHTTPConnection(http.client.HTTPConnection):
    def __init__(self, path, timeout=5.0):
        super().__init__("localhost", timeout=timeout)
        self._path = path

    def connect(self):
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.settimeout(self.timeout)
        s.connect(self._path)
        self.sock = s


def docker_ping(sock_path, timeout=3.0):
    try:
        c = _UnixHTTPConnection(sock_path, timeout)
        c.request("GET", "/_ping")
        r = c.getresponse()
        ok = r.status == 200 and r.read().strip() == b"OK"
        c.close()
        return ok
    except (OSError, http.client.HTTPException):
        return False


def docker_api(sock_path, method, path, timeout=10.0):
    c = _UnixHTTPConnection(sock_path, timeout)
    c.request(method, path)
    r = c.getresponse()
    body = r.read()
    c.close()
    return r.status, (json.loads(body) if body[:1] in (b"{", b"[") else body)


def tcp_open(addr, port, timeout=1.0):
    try:
        with socket.create_connection((addr, port), timeout=timeout):
            return True
    except OSError:
        return False


def wait_for(pred, timeout, interval=0.1):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if pred():
            return True
        time.sleep(interval)
    return pred()


def spawn_detached(argv, log_path):
    """Start argv in its own session, stdio to log_path; return its pid."""
    with open(log_path, "ab") as logf:
        p = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=logf, stderr=subprocess.STDOUT,
                             start_new_session=True, close_fds=True)
    return p


# --------------------------------------------------------------------------- preflight

def preflight(need_ns=True):
    """List of human-readable reasons this machine cannot run the cluster (empty = fine)."""
    problems = []
    if os.geteuid() != 0:
        problems.append("must run as root (network namespaces, bridges and dockerd need it)")
    missing = [b for b in (REQUIRED_BINARIES if need_ns else ["dockerd", "containerd", "docker"])
               if shutil.which(b) is None and not os.path.exists(f"/usr/sbin/{b}")]
    if missing:
        problems.append("missing programs: " + ", ".join(missing) +
                        " (apt-get install docker.io openssh-server openssh-client iproute2 util-linux)")
    return problems


def which(b):
    return shutil.which(b) or (f"/usr/sbin/{b}" if os.path.exists(f"/usr/sbin/{b}") else b)


# --------------------------------------------------------------------------- ssh client side

def ensure_client_key():
    os.makedirs(SSH_DIR, mode=0o700, exist_ok=True)
    os.chmod(SSH_DIR, 0o700)
    if not (os.path.exists(SSH_KEY) and os.path.exists(SSH_KEY + ".pub")):
        for p in (SSH_KEY, SSH_KEY + ".pub"):
            with contextlib.suppress(FileNotFoundError):
                os.unlink(p)
        sh(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "chipperf-sim", "-f", SSH_KEY],
           "generate cluster ssh key")
        log(f"generated {SSH_KEY}")
    pub = read_text(SSH_KEY + ".pub").strip()
    body = " ".join(pub.split()[:2])
    existing = read_text(AUTHORIZED_KEYS, "")
    # Keep every line except earlier cluster keys (comment chipperf-sim); add the current one once.
    kept = [line for line in existing.splitlines()
            if not (line.split()[-1:] == ["chipperf-sim"] and body not in line)]
    if body not in existing:
        kept.append(pub)
    new = "\n".join(kept) + "\n"
    if new != existing:
        write(AUTHORIZED_KEYS, new, 0o600)
    os.chmod(AUTHORIZED_KEYS, 0o600)
    # ~/.ssh/config block so `ssh 10.231.0.11` and docker's paramiko transport find the key.
    block = "\n".join([
        SSH_CONFIG_BEGIN,
        f"Host {SUBNET_PREFIX}*",
        "    User root",
        f"    IdentityFile {SSH_KEY}",
        "    IdentitiesOnly yes",
        f"    UserKnownHostsFile {KNOWN_HOSTS}",
        "    StrictHostKeyChecking yes",
        "    BatchMode yes",
        SSH_CONFIG_END,
    ]) + "\n"
    text = read_text(SSH_CONFIG, "")
    pat = re.compile(re.escape(SSH_CONFIG_BEGIN) + r".*?" + re.escape(SSH_CONFIG_END) + r"\n?", re.DOTALL)
    if pat.search(text):
        new = pat.sub(lambda _m: block, text, count=1)
    else:
        # Put our block first: ssh uses the first value it finds for each option.
        new = block + ("\n" + text if text else "")
    if new != text:
        with open(SSH_CONFIG + ".tmp", "w") as f:
            f.write(new)
        os.chmod(SSH_CONFIG + ".tmp", 0o600)
        os.replace(SSH_CONFIG + ".tmp", SSH_CONFIG)


def forget_host_keys(addresses):
    if not os.path.exists(KNOWN_HOSTS):
        return
    for a in addresses:
        subprocess.run(["ssh-keygen", "-R", a, "-f", KNOWN_HOSTS], check=False, capture_output=True)
    with contextlib.suppress(FileNotFoundError):
        os.unlink(KNOWN_HOSTS + ".old")


def refresh_known_hosts(hosts):
    """Replace known_hosts entries of the hosts with what ssh-keyscan sees now."""
    forget_host_keys([h.address for h in hosts])
    lines = []
    for h in hosts:
        expected = read_text(h.host_key + ".pub").split()[:2]
        got = None
        for _ in range(20):
            p = sh(["ssh-keyscan", "-T", "5", "-t", "ed25519", h.address], "ssh-keyscan", h.name,
                   check=False)
            for line in p.stdout.splitlines():
                parts = line.split()
                if len(parts) >= 3 and not line.startswith("#") and parts[0] == h.address:
                    got = parts
            if got:
                break
            time.sleep(0.25)
        if not got:
            raise SimError("ssh-keyscan", h.name, f"no ed25519 host key from {h.address}:22: "
                           f"{p.stderr.strip()}", h.sshd_log)
        if got[1:3] != expected:
            raise SimError("ssh-keyscan", h.name,
                           f"{h.address}:22 answered with a host key that is not {h.host_key}.pub "
                           "(another sshd on that address?)")
        lines.append(" ".join(got[:3]))
    with open(KNOWN_HOSTS, "a") as f:
        for line in lines:
            f.write(line + "\n")
    os.chmod(KNOWN_HOSTS, 0o644)


# --------------------------------------------------------------------------- network

def ip(*args, step, host=None, check=True):
    return sh(["ip", *args], step, host, check=check)


def link_exists(name, netns=None):
    args = (["-n", netns] if netns else []) + ["link", "show", name]
    return subprocess.run(["ip", *args], check=False, capture_output=True).returncode == 0


def ensure_bridge():
    if not link_exists(BRIDGE):
        # Fixed MAC, else the bridge takes the lowest port MAC and changes it as hosts come and go.
        ip("link", "add", BRIDGE, "address", BRIDGE_MAC, "type", "bridge",
           step="create bridge " + BRIDGE)
    addrs = ip("-4", "-o", "addr", "show", "dev", BRIDGE, step="inspect bridge").stdout
    if f"{BRIDGE_ADDR}/{PREFIXLEN}" not in addrs:
        ip("addr", "replace", f"{BRIDGE_ADDR}/{PREFIXLEN}", "dev", BRIDGE, step="address bridge")
    ip("link", "set", BRIDGE, "up", step="bring bridge up")
    ensure_forward_rule()


def ensure_forward_rule():
    """Bridged traffic between simulated hosts goes through iptables FORWARD when
    br_netfilter is on, and a root dockerd sets FORWARD's policy to DROP: let cpbr0<->cpbr0 pass."""
    if shutil.which("iptables") is None:
        return
    if subprocess.run(["iptables", "-C", *FORWARD_RULE], check=False, capture_output=True).returncode != 0:
        sh(["iptables", "-I", *FORWARD_RULE], "allow bridged traffic on " + BRIDGE, check=False)


def forward_rule_ok():
    if shutil.which("iptables") is None:
        return True
    return subprocess.run(["iptables", "-C", *FORWARD_RULE], check=False,
                          capture_output=True).returncode == 0


def remove_forward_rule():
    if shutil.which("iptables") is None:
        return
    for _ in range(10):
        if run_quiet(["iptables", "-D", *FORWARD_RULE]).returncode != 0:
            break


def setup_netns(h):
    if not os.path.exists(h.netns_path):
        ip("netns", "add", h.netns, step="create network namespace", host=h.name)
    if not link_exists("eth0", h.netns):
        if link_exists(h.veth):
            ip("link", "del", h.veth, step="delete stale veth", host=h.name)
        ip("link", "add", h.veth, "address", h.veth_mac, "type", "veth",
           "peer", "name", "eth0", "address", h.mac, "netns", h.netns,
           step="create veth pair", host=h.name)
    # A stale neighbour entry (from an earlier incarnation of this address) would delay traffic.
    subprocess.run(["ip", "neigh", "del", h.address, "dev", BRIDGE], check=False, capture_output=True)
    ip("link", "set", h.veth, "master", BRIDGE, step="attach veth to bridge", host=h.name)
    ip("link", "set", h.veth, "up", step="bring veth up", host=h.name)
    ip("-n", h.netns, "addr", "replace", f"{h.address}/{PREFIXLEN}", "dev", "eth0",
       step="address eth0", host=h.name)
    ip("-n", h.netns, "link", "set", "eth0", "up", step="bring eth0 up", host=h.name)
    ip("-n", h.netns, "link", "set", "lo", "up", step="bring lo up", host=h.name)


def netns_ok(h):
    if not os.path.exists(h.netns_path) or not link_exists(h.veth):
        return False
    root = run_quiet(["ip", "-o", "link", "show", h.veth]).stdout
    if f"master {BRIDGE}" not in root or "state DOWN" in root:
        return False
    inner = run_quiet(["ip", "-n", h.netns, "-4", "-o", "addr", "show", "dev", "eth0"]).stdout
    lo = run_quiet(["ip", "-n", h.netns, "-o", "link", "show", "lo"]).stdout
    return f"inet {h.address}/{PREFIXLEN}" in inner and "UP" in lo


# --------------------------------------------------------------------------- daemons

def nsenter(h):
    return ["nsenter", f"--net={h.netns_path}"]


def write(path, text, mode=0o644):
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write(text)
    os.chmod(tmp, mode)
    os.replace(tmp, path)


def start_containerd(h):
    os.makedirs(h.ctd_dir, exist_ok=True)
    os.makedirs(os.path.join(h.lib, "containerd"), exist_ok=True)
    write(h.ctd_conf, f"""version = 2
root = "{h.lib}/containerd"
state = "{h.ctd_dir}/state"
disabled_plugins = ["io.containerd.grpc.v1.cri"]
oom_score = 0

[grpc]
  address = "{h.ctd_sock}"

[ttrpc]
  address = ""

[debug]
  address = ""
  level = "info"

[metrics]
  address = ""
""")
    with contextlib.suppress(FileNotFoundError):
        os.unlink(h.ctd_sock)
    p = spawn_detached([*nsenter(h), which("containerd"), "--config", h.ctd_conf], h.ctd_log)
    write(h.ctd_pid, f"{p.pid}\n")

    def up():
        if p.poll() is not None:
            raise SimError("start containerd", h.name, f"exited with {p.returncode}", h.ctd_log)
        return os.path.exists(h.ctd_sock) and _unix_connectable(h.ctd_sock)
    if not wait_for(up, 30):
        raise SimError("start containerd", h.name, f"{h.ctd_sock} not answering after 30s", h.ctd_log)


def _unix_connectable(path):
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
            s.settimeout(1)
            s.connect(path)
        return True
    except OSError:
        return False


def start_dockerd(h):
    os.makedirs(h.data_root, exist_ok=True)
    os.makedirs(h.exec_root, exist_ok=True)
    # Own (empty) config file so a machine-wide /etc/docker/daemon.json cannot leak in
    # (e.g. a "hosts" or "bridge" setting there would conflict with the flags below).
    write(h.daemon_json, "{}\n")
    with contextlib.suppress(FileNotFoundError):
        os.unlink(h.docker_sock)
    argv = [*nsenter(h), which("dockerd"),
            "--config-file", h.daemon_json,
            "--data-root", h.data_root,
            "--exec-root", h.exec_root,
            "-H", h.docker_host,
            "--pidfile", h.dockerd_pid,
            "--containerd", h.ctd_sock,
            "--bridge=none", "--iptables=false", "--ip6tables=false",
            "--ip-forward=false", "--ip-masq=false",
            *(["--cgroup-parent", f"/{h.cgroup}/containers"] if cgroups_usable() else []),
            "--label", f"chipperf.sim.host={h.name}",
            "--label", f"chipperf.sim.address={h.address}"]
    p = spawn_detached(argv, h.dockerd_log)

    def up():
        if p.poll() is not None:
            raise SimError("start dockerd", h.name, f"exited with {p.returncode}", h.dockerd_log)
        return docker_ping(h.docker_sock)
    if not wait_for(up, 60, 0.2):
        raise SimError("start dockerd", h.name, f"{h.docker_sock} does not answer /_ping after 60s",
                       h.dockerd_log)


def sshd_config_text(h):
    return f"""# chipperf simulated host {h.name} (generated by simcluster.py)
ListenAddress {h.address}:22
AddressFamily inet
PidFile {h.sshd_pid}
HostKey {h.host_key}
PermitRootLogin prohibit-password
PubkeyAuthentication yes
PasswordAuthentication no
KbdInteractiveAuthentication no
AuthenticationMethods publickey
AuthorizedKeysFile .ssh/authorized_keys
UsePAM no
StrictModes yes
PrintMotd no
X11Forwarding no
AllowTcpForwarding yes
MaxSessions 100
MaxStartups 100:30:200
ClientAliveInterval 30
SetEnv DOCKER_HOST={h.docker_host} SHLVL=1
Subsystem sftp internal-sftp
"""


def start_sshd(h):
    """sshd in the host's namespace. Its sessions get ``SHLVL=1``, so bash does not read the
    master's ~/.bashrc for a command over SSH (bash reads it only at shell level 1): the sim
    hosts share root's home with the machine they run on, and a developer's shell setup must
    not reach them (CI on 2026-11-26 failed at `up`: pyenv's rehash in ~/.bashrc waited 60 s on
    a stale lock in every login)."""
    os.makedirs("/run/sshd", mode=0o755, exist_ok=True)
    if not os.path.exists(h.host_key):
        sh(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", f"chipperf-sim-{h.name}",
            "-f", h.host_key], "generate host key", h.name)
    write(h.sshd_conf, sshd_config_text(h))
    sshd = which("sshd")
    sh([sshd, "-t", "-f", h.sshd_conf], "check sshd config", h.name)
    with contextlib.suppress(FileNotFoundError):
        os.unlink(h.sshd_pid)
    # sshd daemonizes itself; it logs to sshd.log (-E).
    sh([*nsenter(h), sshd, "-f", h.sshd_conf, "-E", h.sshd_log], "start sshd", h.name,
       log_path=h.sshd_log)
    if not wait_for(lambda: tcp_open(h.address, 22), 15, 0.1):
        raise SimError("start sshd", h.name, f"{h.address}:22 not accepting connections after 15s",
                       h.sshd_log)


def daemon_pids(h):
    return {
        "containerd": read_pid(h.ctd_pid, h.ctd_conf),
        "dockerd": read_pid(h.dockerd_pid, h.dockerd_pid),
        "sshd": read_pid(h.sshd_pid, h.sshd_conf),
    }


def host_health(h):
    """Dict of check -> bool for one host."""
    pids = daemon_pids(h)
    checks = {"netns": netns_ok(h)}
    for name, pid in pids.items():
        checks[name] = pid_in_ns(pid, h)
    checks["dockerd"] = checks["dockerd"] and docker_ping(h.docker_sock)
    checks["sshd"] = checks["sshd"] and tcp_open(h.address, 22)
    checks["host_key"] = os.path.exists(h.host_key + ".pub")
    checks["sshd_config"] = read_text(h.sshd_conf, "") == sshd_config_text(h)   # an older one
    if cgroups_usable():
        checks["cgroup"] = in_host_cgroup(h, pids)
    return checks


def teardown_host(h, purge=False):
    """Stop a host's daemons and everything in its namespace; delete namespace and veth."""
    pids = daemon_pids(h)
    # dockerd first (it stops its containers), then sshd and containerd.
    for name in ("dockerd", "sshd", "containerd"):
        kill_pid(pids[name], timeout=20 if name == "dockerd" else 5)
    # Whatever is left in the namespace (shims, container processes, ssh sessions).
    for _ in range(3):
        rest = pids_in_netns(h.netns_path)
        if not rest:
            break
        for pid in rest:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        time.sleep(0.3)
    if link_exists(h.veth):
        subprocess.run(["ip", "link", "del", h.veth], check=False, capture_output=True)
    if os.path.exists(h.netns_path):
        sh(["ip", "netns", "del", h.netns], "delete network namespace", h.name, check=False)
    unmount_under(h.run)
    shutil.rmtree(h.run, ignore_errors=True)
    remove_cgroup(h)
    if purge:
        unmount_under(h.lib)
        shutil.rmtree(h.lib, ignore_errors=True)


# --------------------------------------------------------------------------- CPU (cgroup v1)

def cgroups_usable():
    """The v1 ``cpu`` and ``cpuacct`` hierarchies are mounted and writable."""
    return all(os.access(os.path.join(CGROUP_V1, c, "cgroup.procs"), os.W_OK)
               for c in ("cpu", "cpuacct"))


def cgroup_dir(controller, h, leaf=""):
    return os.path.join(CGROUP_V1, controller, h.cgroup, leaf).rstrip("/")


def place_in_cgroup(h, pids):
    """Move the host's daemons into chipperf-sim/hI/daemons (their children follow)."""
    for controller in ("cpu", "cpuacct"):
        for leaf in ("daemons", "containers"):
            os.makedirs(cgroup_dir(controller, h, leaf), exist_ok=True)
        for pid in pids:
            if pid:
                with open(os.path.join(cgroup_dir(controller, h, "daemons"), "cgroup.procs"), "w") as f:
                    f.write(str(pid))


def in_host_cgroup(h, pids):
    """Every daemon sits in the host's cgroup, and dockerd puts containers under it."""
    want = f"/{h.cgroup}/daemons"
    for pid in pids.values():
        paths = {}
        for line in (read_text(f"/proc/{pid}/cgroup", "") if pid else "").splitlines():
            _, controllers, path = line.split(":", 2)
            paths.update(dict.fromkeys(controllers.split(","), path))
        if paths.get("cpu") != want or paths.get("cpuacct") != want:
            return False
    cmdline = read_text(f"/proc/{pids['dockerd']}/cmdline", "") if pids["dockerd"] else ""
    return f"/{h.cgroup}/containers" in cmdline.split("\0")


def set_cpu_share(h, cpus):
    """Cap everything the host runs at ``cpus`` CPUs (CFS quota); 0 lifts the cap."""
    quota = int(cpus * CFS_PERIOD_US) if cpus > 0 else -1
    base = cgroup_dir("cpu", h)
    if not os.path.isdir(base):
        raise SimError("cpu-share", h.name, f"{base} missing: run `simcluster.py up` first")
    for name, value in (("cpu.cfs_period_us", CFS_PERIOD_US), ("cpu.cfs_quota_us", quota)):
        with open(os.path.join(base, name), "w") as f:  # in place: cgroup files cannot be renamed
            f.write(str(value))


def cpu_cap(h):
    """The host's CPU cap in CPUs, or None (no cap, or no cgroup)."""
    quota = read_text(os.path.join(cgroup_dir("cpu", h), "cpu.cfs_quota_us"), "-1").strip()
    period = read_text(os.path.join(cgroup_dir("cpu", h), "cpu.cfs_period_us"), "0").strip()
    return round(int(quota) / int(period), 3) if int(quota) > 0 and int(period) > 0 else None


def remove_cgroup(h):
    """rmdir the host's cgroups, deepest first (all processes are gone by now)."""
    for controller in ("cpu", "cpuacct"):
        base = cgroup_dir(controller, h)
        if not os.path.isdir(base):
            continue
        for root, _dirs, _ in sorted(os.walk(base), key=lambda w: -len(w[0])):
            with contextlib.suppress(OSError):
                os.rmdir(root)


def unmount_under(path):
    prefix = path.rstrip("/") + "/"
    mounts = [line.split()[1] for line in read_text("/proc/self/mounts", "").splitlines()]
    mounts = [m.encode().decode("unicode_escape") for m in mounts]
    for m in sorted((m for m in mounts if m.startswith(prefix) or m == path), key=len, reverse=True):
        subprocess.run(["umount", "-l", m], check=False, capture_output=True)


def build_host(h):
    t = time.monotonic()
    os.makedirs(h.run, exist_ok=True)
    os.makedirs(h.lib, exist_ok=True)
    setup_netns(h)
    start_containerd(h)
    start_dockerd(h)
    start_sshd(h)
    if cgroups_usable():
        place_in_cgroup(h, daemon_pids(h).values())
    log(f"up at {h.address} in {time.monotonic() - t:.1f}s", h.name)


def ensure_host(h):
    health = host_health(h)
    if all(health.values()):
        log(f"healthy, kept ({h.address})", h.name)
        return "kept"
    present = os.path.exists(h.netns_path) or os.path.exists(h.run)
    if present:
        bad = ", ".join(k for k, v in health.items() if not v)
        log(f"unhealthy ({bad}): rebuilding", h.name)
        teardown_host(h)
    build_host(h)
    return "rebuilt" if present else "created"


def ssh_check(h):
    """End to end: key login over the bridge, and `docker info` talks to this host's daemon."""
    argv = ["ssh", "-i", SSH_KEY, "-o", "BatchMode=yes", "-o", "IdentitiesOnly=yes",
            "-o", "StrictHostKeyChecking=yes", "-o", f"UserKnownHostsFile={KNOWN_HOSTS}",
            "-o", "ConnectTimeout=10", "-p", "22", f"root@{h.address}",
            "docker info --format '{{.DockerRootDir}}'"]
    p = None
    for _ in range(5):
        try:
            p = subprocess.run(argv, check=False, capture_output=True, text=True, timeout=60,
                               stdin=subprocess.DEVNULL)
        except subprocess.TimeoutExpired as e:
            raise SimError("ssh check", h.name,
                           f"`ssh root@{h.address} docker info` gave no answer in {e.timeout:.0f} s "
                           f"(logged in? see the log; a login shell's startup files can block)",
                           h.sshd_log) from None
        if p.returncode == 0:
            break
        time.sleep(0.5)
    if p.returncode != 0:
        raise SimError("ssh check", h.name, f"`ssh root@{h.address} docker info` exited {p.returncode}: "
                       f"{p.stderr.strip()[-1500:]}", h.sshd_log)
    got = p.stdout.strip()
    if got != h.data_root:
        raise SimError("ssh check", h.name,
                       f"docker over ssh reports data-root {got!r}, expected {h.data_root!r} "
                       "(DOCKER_HOST not applied?)")


# --------------------------------------------------------------------------- state

def discovered_hosts():
    """Hosts that exist in any form (namespace, run dir, state file)."""
    names = set()
    if os.path.isdir("/var/run/netns"):
        for n in os.listdir("/var/run/netns"):
            if re.fullmatch(re.escape(NAME_PREFIX) + r"h\d+", n):
                names.add(n[len(NAME_PREFIX):])
    if os.path.isdir(RUN_DIR):
        for n in os.listdir(RUN_DIR):
            if re.fullmatch(r"h\d+", n):
                names.add(n)
    st = read_state()
    if st:
        names.update(x["name"] for x in st.get("hosts", []))
    return sorted((Host.from_name(n) for n in names), key=lambda h: h.index)


def read_state():
    try:
        with open(STATE_FILE) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def write_state(hosts):
    state = {"hosts": [h.state() for h in hosts], "ssh_user": "root", "ssh_key": SSH_KEY,
             "known_hosts": KNOWN_HOSTS}
    write(STATE_FILE, json.dumps(state, indent=2) + "\n")
    return state


@contextlib.contextmanager
def locked():
    os.makedirs(RUN_DIR, exist_ok=True)
    with open(LOCK_FILE, "w") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


# --------------------------------------------------------------------------- commands

def cmd_up(args):
    problems = preflight()
    if problems:
        raise SimError("preflight", detail="; ".join(problems))
    n = args.hosts
    if not 1 <= n <= MAX_HOSTS:
        raise SimError("parse arguments", detail=f"--hosts must be 1..{MAX_HOSTS}")
    only = parse_host_names(args.only, "--only") if args.only else None
    t0 = time.monotonic()
    with locked():
        if only:   # just these: nothing else is removed, rekeyed or uncapped
            hosts = only
            extra = []
            known = {h.name for h in discovered_hosts()} | {h.name for h in only}
            keep = sorted((Host.from_name(x) for x in known), key=lambda h: h.index)
        else:
            hosts = [Host(i) for i in range(1, n + 1)]
            extra = [h for h in discovered_hosts() if h.index > n]
            keep = hosts
        for h in extra:
            log(f"not wanted (--hosts {n}): removing", h.name)
            teardown_host(h)
        if extra:
            forget_host_keys([h.address for h in extra])
        ensure_client_key()
        ensure_bridge()
        # Namespaces + daemons in parallel: each host is independent.
        results = {}
        with concurrent.futures.ThreadPoolExecutor(max_workers=min(8, len(hosts))) as ex:
            futs = {ex.submit(ensure_host, h): h for h in hosts}
            errors = []
            for f in concurrent.futures.as_completed(futs):
                try:
                    results[futs[f].name] = f.result()
                except SimError as e:
                    errors.append(e)
        if errors:
            raise SimError("up", detail="\n".join(e.render() for e in errors))
        # a cap left by an interrupted benchmark or test goes first: hosts start uncapped, and a
        # host held at 0.05 CPUs can take over the check's 60 s to answer over SSH
        if cgroups_usable():
            for h in hosts:
                set_cpu_share(h, 0)
        refresh_known_hosts(hosts)
        with concurrent.futures.ThreadPoolExecutor(max_workers=min(8, len(hosts))) as ex:
            list(ex.map(ssh_check, hosts))
        write_state(keep)
    log(f"cluster up: {len(hosts)} host(s) ({', '.join(f'{k}={v}' for k, v in sorted(results.items()))}) "
        f"in {time.monotonic() - t0:.1f}s; state in {STATE_FILE}")
    return 0


def cmd_down(args):
    if os.geteuid() != 0:
        raise SimError("preflight", detail="must run as root")
    with locked():
        hosts = discovered_hosts()
        if hosts:
            log("tearing down " + ", ".join(h.name for h in hosts))
            with concurrent.futures.ThreadPoolExecutor(max_workers=min(8, len(hosts))) as ex:
                list(ex.map(lambda h: teardown_host(h, purge=args.purge), hosts))
        if link_exists(BRIDGE):
            subprocess.run(["ip", "link", "del", BRIDGE], check=False, capture_output=True)
        remove_forward_rule()
        forget_host_keys([h.address for h in hosts])
        with contextlib.suppress(FileNotFoundError):
            os.unlink(STATE_FILE)
        if args.purge:
            for h in (Host.from_name(n) for n in (os.listdir(LIB_DIR) if os.path.isdir(LIB_DIR) else [])
                      if re.fullmatch(r"h\d+", n)):
                unmount_under(h.lib)
            shutil.rmtree(LIB_DIR, ignore_errors=True)
    log(f"cluster down ({len(hosts)} host(s) removed{', data purged' if args.purge else ''})")
    return 0


def cmd_status(args):
    st = read_state()
    hosts = discovered_hosts()
    out = {"state_file": STATE_FILE if st else None, "bridge": link_exists(BRIDGE),
           "forward_rule": forward_rule_ok(), "root_dockerd": docker_ping(ROOT_DOCKER_SOCK),
           "hosts": []}
    all_ok = bool(st) and out["bridge"] and out["forward_rule"] and bool(hosts)
    for h in hosts:
        checks = host_health(h)
        ok = all(checks.values())
        all_ok = all_ok and ok
        out["hosts"].append({**h.state(), "cpu_cap": cpu_cap(h), "healthy": ok, "checks": checks,
                             "in_state_file": bool(st) and h.name in [x["name"] for x in st["hosts"]]})
    slurm = slurm_status()
    if slurm is not None:   # reported, not in the exit status: `up` cannot repair Slurm (slurm-up does)
        out["slurm"] = slurm
    out["healthy"] = all_ok
    print(json.dumps(out, indent=2))
    return 0 if all_ok else 3


def ensure_root_dockerd(timeout=90):
    if docker_ping(ROOT_DOCKER_SOCK):
        log(f"root dockerd already answering on {ROOT_DOCKER_SOCK}")
        return
    problems = preflight(need_ns=False)
    if problems:
        raise SimError("ensure-dockerd preflight", detail="; ".join(problems))
    with locked():
        _start_root_dockerd(timeout)


def _start_root_dockerd(timeout):
    # A dockerd may be starting already (init script, another caller): give it a moment.
    if wait_for(lambda: docker_ping(ROOT_DOCKER_SOCK), 3 if os.path.exists(ROOT_DOCKER_SOCK) else 0):
        log(f"root dockerd answering on {ROOT_DOCKER_SOCK}")
        return
    os.makedirs(os.path.dirname(ROOT_DOCKERD_LOG), exist_ok=True)
    p = spawn_detached([which("dockerd")], ROOT_DOCKERD_LOG)

    def up():
        if docker_ping(ROOT_DOCKER_SOCK):
            return True
        if p.poll() is not None and not os.path.exists(ROOT_DOCKER_SOCK):
            raise SimError("ensure-dockerd", detail=f"dockerd exited with {p.returncode}",
                           log=ROOT_DOCKERD_LOG)
        return False
    if not wait_for(up, timeout, 0.2):
        raise SimError("ensure-dockerd", detail=f"{ROOT_DOCKER_SOCK} does not answer /_ping after "
                       f"{timeout}s", log=ROOT_DOCKERD_LOG)
    # Re-assert our FORWARD rule in case the cluster is already up (dockerd just set FORWARD to DROP).
    if link_exists(BRIDGE):
        ensure_forward_rule()
    log(f"root dockerd started (pid {p.pid}, log {ROOT_DOCKERD_LOG})")


def cmd_ensure_dockerd(args):
    if os.geteuid() != 0:
        raise SimError("ensure-dockerd preflight", detail="must run as root")
    ensure_root_dockerd(args.timeout)
    return 0


def cmd_cpu_share(args):
    st = read_state()
    if not st:
        raise SimError("cpu-share", detail=f"cluster is not up ({STATE_FILE} missing)")
    if not cgroups_usable():
        raise SimError("cpu-share", detail=f"needs the cgroup v1 cpu and cpuacct hierarchies under "
                       f"{CGROUP_V1} (this machine has neither writable)")
    if args.cpus < 0:
        raise SimError("parse arguments", detail="--cpus must be >= 0")
    up = [x["name"] for x in st["hosts"]]
    hosts = parse_host_names(args.hosts, "--hosts") if args.hosts else [Host.from_name(x) for x in up]
    missing = [h.name for h in hosts if h.name not in up]
    if missing:
        raise SimError("cpu-share", detail=f"{', '.join(missing)} not in the cluster (up: {', '.join(up)})")
    with locked():
        for h in hosts:
            set_cpu_share(h, args.cpus)
    which_hosts = ", ".join(h.name for h in hosts) if args.hosts else "every host"
    log(f"{which_hosts} limited to {args.cpus:g} CPU(s)" if args.cpus
        else f"CPU limits lifted ({which_hosts})")
    return 0


def parse_host_names(text, option):
    """"h4,h5" -> [Host(4), Host(5)]; a bad or repeated name is refused, naming the option."""
    names = [n.strip() for n in text.split(",") if n.strip()]
    if not names:
        raise SimError("parse arguments", detail=f"{option}: no host names in {text!r}")
    try:
        hosts = [Host.from_name(n) for n in names]
    except SimError as e:
        raise SimError("parse arguments", detail=f"{option}: {e.detail}") from None
    if len({h.name for h in hosts}) != len(hosts):
        raise SimError("parse arguments", detail=f"{option}: a host is named twice in {text!r}")
    return sorted(hosts, key=lambda h: h.index)


def cmd_ensure_minbase(args):
    """Build chipperf-sim/minbase:test (Debian bookworm minbase via debootstrap) in the root daemon."""
    ensure_root_dockerd()
    st, _ = docker_api(ROOT_DOCKER_SOCK, "GET", f"/images/{MINBASE_IMAGE}/json")
    if st == 200 and not args.force:
        log(f"{MINBASE_IMAGE} already present")
        return 0
    if shutil.which("debootstrap") is None:
        raise SimError("ensure-minbase", detail="debootstrap not installed (apt-get install debootstrap)")
    work = os.path.join(LIB_DIR, "minbase-rootfs")
    shutil.rmtree(work, ignore_errors=True)
    t = time.monotonic()
    sh(["debootstrap", "--variant=minbase", args.suite, work, args.mirror], "debootstrap",
       timeout=1200)
    log(f"debootstrap {args.suite} done in {time.monotonic() - t:.1f}s")
    tar = subprocess.Popen(["tar", "-C", work, "-c", "."], stdout=subprocess.PIPE)
    imp = subprocess.run(["docker", "-H", f"unix://{ROOT_DOCKER_SOCK}", "import", "-", MINBASE_IMAGE],
                         check=False, stdin=tar.stdout, capture_output=True, text=True)
    tar.stdout.close()
    tar.wait()
    shutil.rmtree(work, ignore_errors=True)
    if imp.returncode != 0 or tar.returncode != 0:
        raise SimError("docker import", detail=imp.stderr.strip())
    log(f"built {MINBASE_IMAGE} in {time.monotonic() - t:.1f}s")
    return 0


def cmd_load_image(args):
    """docker save from the root daemon | docker load into each host's daemon."""
    st = read_state()
    if not st:
        raise SimError("load-image", detail=f"cluster is not up ({STATE_FILE} missing)")
    names = args.hosts.split(",") if args.hosts else [x["name"] for x in st["hosts"]]
    hosts = [Host.from_name(n) for n in names]
    for h in hosts:
        t = time.monotonic()
        save = subprocess.Popen(["docker", "-H", f"unix://{ROOT_DOCKER_SOCK}", "save", args.image],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        load = subprocess.run(["docker", "-H", h.docker_host, "load", "-q"], check=False, stdin=save.stdout,
                              capture_output=True, text=True)
        save.stdout.close()
        err = save.stderr.read().decode()
        save.wait()
        if save.returncode != 0 or load.returncode != 0:
            raise SimError("load-image", h.name, (err + load.stderr).strip())
        log(f"loaded {args.image} in {time.monotonic() - t:.1f}s", h.name)
    return 0


# --------------------------------------------------------------------------- Slurm

SLURM_CONF = "/etc/slurm/slurm.conf"
SLURM_MARK = "# chipperf-sim slurm.conf (generated by tests/simcluster/simcluster.py)"
SLURM_RUN = os.path.join(RUN_DIR, "slurm")
SLURM_LIB = os.path.join(LIB_DIR, "slurm")
SLURM_JOBCOMP = os.path.join(SLURM_LIB, "jobcomp.txt")
SLURMCTLD_PID = os.path.join(SLURM_RUN, "slurmctld.pid")
SLURMCTLD_LOG = os.path.join(SLURM_RUN, "slurmctld.log")
MUNGE_SOCKET = "/run/munge/munge.socket.2"
MUNGE_LOG = "/var/log/munge/munged.log"
DEFAULT_SLURM_NODES = "h7,h8"   # away from h1..h6, which other test sessions use
SLURM_NODE_CPUS = 2
SLURM_NODE_MEMORY_MB = 1000
SLURM_SHORT_MAXTIME_MIN = 5
SLURM_BINARIES = ["slurmctld", "slurmd", "munged", "munge", "unmunge", "sinfo", "scontrol", "sbatch"]


def slurmd_pid_file(h):
    return os.path.join(SLURM_RUN, f"slurmd-{h.name}.pid")


def slurm_conf_text(nodes):
    """slurm.conf for a controller on the bridge address and one slurmd per simulated host.
    No accounting database (slurmdbd needs MariaDB): finished jobs are written by
    jobcomp/filetxt to SLURM_JOBCOMP, the scheduler's own record of each job."""
    names = ",".join(h.name for h in nodes)
    lines = [SLURM_MARK,
             "ClusterName=chipperfsim",
             f"SlurmctldHost={socket.gethostname()}({BRIDGE_ADDR})",
             "SlurmUser=root", "SlurmdUser=root", "AuthType=auth/munge",
             f"StateSaveLocation={SLURM_LIB}/ctld",
             f"SlurmdSpoolDir={SLURM_LIB}/%n",
             f"SlurmctldPidFile={SLURMCTLD_PID}",
             f"SlurmdPidFile={SLURM_RUN}/slurmd-%n.pid",
             f"SlurmctldLogFile={SLURMCTLD_LOG}",
             f"SlurmdLogFile={SLURM_RUN}/slurmd-%n.log",
             "SlurmctldPort=6817", "SlurmdPort=6818",
             "SelectType=select/cons_tres", "SelectTypeParameters=CR_Core",
             "ProctrackType=proctrack/pgid", "TaskPlugin=task/none",
             "JobAcctGatherType=jobacct_gather/none",
             "AccountingStorageType=accounting_storage/none",
             "JobCompType=jobcomp/filetxt", f"JobCompLoc={SLURM_JOBCOMP}",
             "ReturnToService=2", "SlurmdTimeout=20", "SlurmctldTimeout=20",
             "MinJobAge=600", "KillWait=5", "InactiveLimit=0", "MpiDefault=none",
             "SchedulerType=sched/backfill"]
    lines += [f"NodeName={h.name} NodeAddr={h.address} CPUs={SLURM_NODE_CPUS} "
              f"RealMemory={SLURM_NODE_MEMORY_MB} State=UNKNOWN" for h in nodes]
    lines += [f"PartitionName=debug Nodes={names} Default=YES MaxTime=INFINITE State=UP",
              f"PartitionName=short Nodes={names} MaxTime={SLURM_SHORT_MAXTIME_MIN} State=UP",
              f"PartitionName=closed Nodes={names} MaxTime=INFINITE State=DOWN"]
    return "\n".join(lines) + "\n"


def slurm_conf_nodes():
    """Hosts the current slurm.conf names (empty when there is none of ours)."""
    text = read_text(SLURM_CONF, "")
    if not text.startswith(SLURM_MARK):
        return []
    return [Host.from_name(m) for m in re.findall(r"^NodeName=(h\d+) ", text, re.MULTILINE)]


def munge_ok():
    if not os.path.exists(MUNGE_SOCKET):
        return False
    cred = run_quiet(["munge", "-n"])
    return cred.returncode == 0 and subprocess.run(
        ["unmunge"], input=cred.stdout, capture_output=True, text=True, check=False).returncode == 0


def ensure_munged():
    if munge_ok():
        return
    for d in ("/run/munge", "/var/log/munge", "/var/lib/munge"):
        os.makedirs(d, exist_ok=True)
        shutil.chown(d, "munge", "munge")
    sh(["runuser", "-u", "munge", "--", which("munged")], "start munged", log_path=MUNGE_LOG)
    if not wait_for(munge_ok, 15, 0.2):
        raise SimError("start munged", detail=f"{MUNGE_SOCKET} does not answer", log=MUNGE_LOG)
    log("munged started")


def slurmctld_ok():
    return read_pid(SLURMCTLD_PID, "slurmctld") is not None and tcp_open(BRIDGE_ADDR, 6817)


def slurmd_ok(h):
    pid = read_pid(slurmd_pid_file(h), "slurmd")
    return pid_in_ns(pid, h) and tcp_open(h.address, 6818)


def start_slurmctld(restart):
    if restart:
        kill_pid(read_pid(SLURMCTLD_PID, "slurmctld"))
    if slurmctld_ok():
        return
    kill_pid(read_pid(SLURMCTLD_PID, "slurmctld"))
    os.makedirs(os.path.join(SLURM_LIB, "ctld"), exist_ok=True)
    # -c: no jobs from the state it saved last time (a run cut off mid-test left one queued,
    # and the next session's first Slurm test found it): a test cluster starts empty
    sh([which("slurmctld"), "-c"], "start slurmctld", log_path=SLURMCTLD_LOG)   # daemonizes
    if not wait_for(slurmctld_ok, 30, 0.2):
        raise SimError("start slurmctld", detail=f"{BRIDGE_ADDR}:6817 not answering", log=SLURMCTLD_LOG)
    log(f"slurmctld up at {BRIDGE_ADDR}:6817")


def start_slurmd(h, restart):
    pid = read_pid(slurmd_pid_file(h), "slurmd")
    if restart or (pid is not None and not slurmd_ok(h)):
        kill_pid(pid)
    if slurmd_ok(h):
        return
    os.makedirs(os.path.join(SLURM_LIB, h.name), exist_ok=True)
    sh([*nsenter(h), which("slurmd"), "-N", h.name], "start slurmd", h.name,
       log_path=os.path.join(SLURM_RUN, f"slurmd-{h.name}.log"))
    if not wait_for(lambda: slurmd_ok(h), 30, 0.2):
        raise SimError("start slurmd", h.name, f"{h.address}:6818 not answering",
                       os.path.join(SLURM_RUN, f"slurmd-{h.name}.log"))
    log(f"slurmd up at {h.address}:6818", h.name)


def sinfo_states():
    """node -> state as sinfo reports it (``idle``, ``down*``, ...)."""
    p = run_quiet(["sinfo", "-h", "-N", "-o", "%N %t"])
    return dict(line.split() for line in p.stdout.splitlines() if len(line.split()) == 2)


def wait_nodes_usable(nodes, timeout=60):
    bad = {}

    def usable():
        nonlocal bad
        states = sinfo_states()
        bad = {h.name: states.get(h.name, "missing") for h in nodes
               if states.get(h.name, "").rstrip("*~#") not in ("idle", "alloc", "mix", "comp")}
        for name, state in bad.items():
            if state.startswith(("down", "drain", "inval")):
                run_quiet(["scontrol", "update", f"nodename={name}", "state=resume"])
        return not bad
    if not wait_for(usable, timeout, 1.0):
        raise SimError("slurm nodes", detail=f"not usable after {timeout}s: {bad}", log=SLURMCTLD_LOG)


def cmd_slurm_up(args):
    problems = preflight()
    missing = [b for b in SLURM_BINARIES if shutil.which(b) is None and not os.path.exists(f"/usr/sbin/{b}")]
    if missing:
        problems.append(f"missing programs: {', '.join(missing)} (apt-get install slurm-wlm munge)")
    if problems:
        raise SimError("slurm preflight", detail="; ".join(problems))
    nodes = parse_host_names(args.nodes, "--nodes")
    sick = [h for h in nodes if not all(host_health(h).values())]
    if sick:   # the nodes are simulated hosts first: build or repair just those
        cmd_up(argparse.Namespace(hosts=3, only=",".join(h.name for h in sick)))
    existing = read_text(SLURM_CONF, "")
    if existing and not existing.startswith(SLURM_MARK):
        raise SimError("slurm-up", detail=f"{SLURM_CONF} exists and is not ours: move it away first")
    with locked():
        os.makedirs(SLURM_RUN, exist_ok=True)
        os.makedirs(SLURM_LIB, exist_ok=True)
        text = slurm_conf_text(nodes)
        changed = text != existing
        if changed:
            os.makedirs(os.path.dirname(SLURM_CONF), exist_ok=True)
            write(SLURM_CONF, text)
        ensure_munged()
        start_slurmctld(restart=changed)
        for h in nodes:
            start_slurmd(h, restart=changed)
        wait_nodes_usable(nodes)
    log(f"slurm up: nodes {', '.join(h.name for h in nodes)}; partitions debug (default), short "
        f"(MaxTime {SLURM_SHORT_MAXTIME_MIN} min), closed (State=DOWN); conf {SLURM_CONF}")
    return 0


def cmd_slurm_down(args):
    with locked():
        for h in slurm_conf_nodes():
            kill_pid(read_pid(slurmd_pid_file(h), "slurmd"))
        kill_pid(read_pid(SLURMCTLD_PID, "slurmctld"))
    log("slurm daemons stopped (munged and slurm.conf kept)")
    return 0


def slurm_status():
    """None when this machine has no simulated Slurm; else its health."""
    nodes = slurm_conf_nodes()
    if not nodes:
        return None
    states = sinfo_states() if slurmctld_ok() else {}
    out = {"conf": SLURM_CONF, "munged": munge_ok(), "slurmctld": slurmctld_ok(),
           "jobcomp": SLURM_JOBCOMP,
           "nodes": {h.name: {"address": h.address, "slurmd": slurmd_ok(h),
                              "state": states.get(h.name)} for h in nodes}}
    out["healthy"] = out["munged"] and out["slurmctld"] and all(
        n["slurmd"] and (n["state"] or "").rstrip("*~#") in ("idle", "alloc", "mix", "comp")
        for n in out["nodes"].values())
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(prog="simcluster.py", description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("up", help="create/repair hosts h1..hN (idempotent)")
    p.add_argument("--hosts", type=int, default=3)
    p.add_argument("--only", help="comma-separated host names (e.g. h4,h5,h6): build/repair just "
                   "these, leave every other host as it is")
    p.set_defaults(func=cmd_up)
    p = sub.add_parser("down", help="remove the cluster")
    p.add_argument("--purge", action="store_true", help=f"also delete {LIB_DIR} (docker data)")
    p.set_defaults(func=cmd_down)
    p = sub.add_parser("status", help="print JSON health; exit 0 when healthy, 3 otherwise")
    p.set_defaults(func=cmd_status)
    p = sub.add_parser("ensure-dockerd", help="start the root-namespace dockerd if not answering")
    p.add_argument("--timeout", type=int, default=90)
    p.set_defaults(func=cmd_ensure_dockerd)
    p = sub.add_parser("ensure-minbase", help=f"build {MINBASE_IMAGE} in the root daemon if missing")
    p.add_argument("--suite", default="bookworm")
    p.add_argument("--mirror", default="http://deb.debian.org/debian")
    p.add_argument("--force", action="store_true")
    p.set_defaults(func=cmd_ensure_minbase)
    p = sub.add_parser("load-image", help="copy an image from the root daemon into host daemons")
    p.add_argument("image")
    p.add_argument("--hosts", help="comma-separated host names (default: all)")
    p.set_defaults(func=cmd_load_image)
    p = sub.add_parser("cpu-share", help="cap every host's CPU (its daemons, sessions, containers)")
    p.add_argument("--cpus", type=float, required=True, help="CPUs per host; 0 lifts the cap")
    p.add_argument("--hosts", help="comma-separated host names (e.g. h5): cap just these "
                   "(default: every host)")
    p.set_defaults(func=cmd_cpu_share)
    p = sub.add_parser("slurm-up", help="munged, slurmctld (10.231.0.1) and a slurmd in each of "
                       "the named hosts (built first if needed); idempotent")
    p.add_argument("--nodes", default=DEFAULT_SLURM_NODES,
                   help=f"comma-separated host names (default {DEFAULT_SLURM_NODES})")
    p.set_defaults(func=cmd_slurm_up)
    p = sub.add_parser("slurm-down", help="stop slurmctld and every slurmd")
    p.set_defaults(func=cmd_slurm_down)
    args = ap.parse_args(argv)
    try:
        return args.func(args)
    except SimError as e:
        print(f"simcluster: error: {e.render()}", file=sys.stderr)
        return 1
    except BrokenPipeError:  # e.g. `status | head`
        with contextlib.suppress(OSError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except KeyboardInterrupt:
        print("simcluster: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
