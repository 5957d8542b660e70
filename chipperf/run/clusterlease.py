"""The cluster lease: a run holds every host it uses for its whole life, on the host.

One lock file per host (``/tmp/chipperf-host-<hostname>-<netns>.lease``: the simulated
hosts of tests/simcluster share one file system and differ by network namespace) is
flock'ed by a small shell on the host whose stdin is an SSH channel of the master, as the
work-dir leases of chipperf.run.lease are: when the master ends in any way (SIGKILL included)
the channel closes, the shell reads end-of-file and exits, and the kernel drops the lock.
Beside it, ``<lock>.json`` says who holds it (run id, result dir, master, pid, user,
since), and ``<lock>.pid`` the pid of the shell holding it. A run ending normally says
``release`` first and the record goes with the lock; a lock found free with a record beside
it was left by a master that is gone, and is taken over with a line saying whose it was.

A lock still held for a master process that is gone from this very master (same master
name, its pid not running: a master SIGKILLed while its link to the host was cut, whose SSH
session sshd has not dropped yet) is taken over at once too: the holding shell, checked to
be a lease shell by its command line, is ended on the host (``BREAK_SCRIPT``), with a line.

A second run on any of the hosts is refused before it touches anything, or with ``--wait``
waits for each host in turn. Hosts are taken in sorted order, so two waiting runs never
hold one host each while waiting for the other's.
"""

from __future__ import annotations

import getpass
import json
import logging
import os
import platform
import time
from dataclasses import asdict, dataclass
from datetime import datetime
from typing import Callable, Mapping

from chipperf.errors import ChipperfError, HostError
from chipperf.remote.group import each
from chipperf.remote.host import Held, HoldEnded, Host

log = logging.getLogger("chipperf")

LEASE_BASE = "/tmp/chipperf-host"
BUSY, NO_FLOCK, NO_RECORD = 75, 72, 73   # what the take script exits with when it holds nothing
TAKE_NAME, BREAK_NAME = "chipperf-lease", "chipperf-lease-break"   # the scripts' $0

# $1: the lock's base path, $2: the holder record (JSON). Prints `lease <path>` and, for a
# lock its master left without releasing, `was <record>`; then echoes the master's first
# line (Host.hold) and holds the lock until its stdin ends. `record <json>` rewrites the
# record; `release` removes it and ends. Busy: prints `busy <record>` and `shell <pid of the
# holding shell>`, and exits BUSY.
TAKE_SCRIPT = f"""\
net=$(readlink /proc/self/ns/net 2>/dev/null | tr -cd 0-9)
lock="$1-$(uname -n)-${{net:-0}}.lease"
[ -e "$lock" ] || (umask 0; : >>"$lock") 2>/dev/null
exec 9<"$lock" || exit {NO_FLOCK}
flock --nonblock --conflict-exit-code {BUSY} 9; got=$?
if [ "$got" = {BUSY} ]; then
  printf 'busy %s\\nshell %s\\n' "$(cat "$lock.json" 2>/dev/null)" "$(cat "$lock.pid" 2>/dev/null)"
  exit {BUSY}
fi
[ "$got" = 0 ] || exit {NO_FLOCK}
printf '%s\\n' $$ >"$lock.pid" 2>/dev/null
printf 'lease %s\\n' "$lock"
[ -s "$lock.json" ] && printf 'was %s\\n' "$(cat "$lock.json")"
put() {{ printf '%s\\n' "$1" >"$lock.json.$$" && mv -f "$lock.json.$$" "$lock.json"; }}
put "$2" || exit {NO_RECORD}
IFS= read -r line && printf '%s\\n' "$line"
while IFS= read -r line; do
  case $line in
    release) rm -f "$lock.json" "$lock.pid"; exit 0;;
    "record "*) put "${{line#record }}";;
  esac
done
"""


# $1: the lock's base path, $2: the pid of the shell that holds it (what `busy` said).
# Ends that shell when it still holds this lock and is a lease shell; exit 0 once the lock
# is free (a shell ended but not yet reaped by its parent holds no lock any more).
BREAK_SCRIPT = f"""\
net=$(readlink /proc/self/ns/net 2>/dev/null | tr -cd 0-9)
lock="$1-$(uname -n)-${{net:-0}}.lease"
[ "$(cat "$lock.pid" 2>/dev/null)" = "$2" ] || exit 3
tr '\\000' ' ' <"/proc/$2/cmdline" 2>/dev/null | grep -q -- ' {TAKE_NAME} ' || exit 4
free() {{ flock --nonblock "$lock" true 2>/dev/null; }}
kill "$2" 2>/dev/null
for i in 1 2 3 4 5 6 7 8 9 10; do free && exit 0; sleep 0.2; done
kill -9 "$2" 2>/dev/null; sleep 0.5; free || exit 5
"""


def take_argv(base: str, record: str) -> list[str]:
    """The take script as an argument list (the record is an argument, never script text)."""
    return ["sh", "-c", TAKE_SCRIPT, TAKE_NAME, base, record]


def break_argv(base: str, shell_pid: int) -> list[str]:
    return ["sh", "-c", BREAK_SCRIPT, BREAK_NAME, base, str(shell_pid)]


@dataclass(frozen=True)
class Holder:
    """Who holds a host's lease: the record beside its lock file."""
    master: str
    pid: int
    since: str                  # ISO 8601, the master's local time with its offset
    user: str = ""
    run_id: str = ""            # empty while the run is starting (no run dir yet)
    result_dir: str = ""

    @classmethod
    def of_this_process(cls, now: datetime | None = None) -> "Holder":
        when = (now or datetime.now()).astimezone().isoformat(timespec="seconds")
        return cls(platform.node(), os.getpid(), when, _user())

    @classmethod
    def parse(cls, text: str) -> "Holder | None":
        """The record as the host has it; None when it is empty or not one."""
        try:
            data = json.loads(text)
            return cls(str(data["master"]), int(data["pid"]), str(data["since"]),
                       str(data.get("user", "")), str(data.get("run_id", "")),
                       str(data.get("result_dir", "")))
        except (ValueError, TypeError, KeyError):
            return None

    def to_json(self) -> str:
        return json.dumps(asdict(self), separators=(",", ":"))

    def describe(self) -> str:
        """'run run20250101120000 (master node1, pid 4242, user root, since ...)'."""
        who = f"run {self.run_id}" if self.run_id else "a run that is starting"
        user = f", user {self.user}" if self.user else ""
        return f"{who} (master {self.master}, pid {self.pid}{user}, since {self.since})"

    def gone_here(self) -> bool:
        """Whether its master is this machine and its master process is no longer running."""
        return self.master == platform.node() and not _running(self.pid)


def _running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError, ValueError):
        return True   # another user's process, or a pid this system cannot have: not ours to judge
    return True


def _user() -> str:
    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return ""


def holder_of(said: str, tag: str) -> Holder | None:
    """The record after ``tag`` ('busy', 'was') in what the take script printed (pure)."""
    for line in said.splitlines():
        if line.startswith(f"{tag} "):
            return Holder.parse(line[len(tag) + 1:])
    return None


def busy_message(host: str, holder: Holder | None) -> str:
    who = holder.describe() if holder else "another run (its record is not there yet)"
    return f"{host} is in use by {who}"


def refused_message(host: str, holder: Holder | None) -> str:
    if holder is not None and holder.gone_here():
        return (f"{host} is still leased by {holder.describe()}, which has ended: its master "
                f"process {holder.pid} is gone from this master, but the host's lease shell "
                "could not be ended (it ends when the host's sshd drops the dead session): "
                "this run was not started (nothing was touched); start it again in a few "
                "minutes, or with `chipperf run --wait`")
    return (f"{busy_message(host, holder)}: this run was not started (nothing was touched); "
            "start it when that run has ended, or with `chipperf run --wait` to wait for it")


def ended_holder_message(host: str, holder: Holder) -> str:
    return (f"[{host}] the lease is held for {holder.describe()}, whose master process is gone "
            "from this master (its SSH session to the host is still open, e.g. after a cut "
            "link): ending the host's lease shell and taking the lease over")


def takeover_message(host: str, was: Holder) -> str:
    return (f"[{host}] took over the lease of {was.describe()}: its master is gone (it ended "
            "without releasing the host)")


def waited_message(host: str, holder: Holder | None, waited_s: float) -> str:
    return (f"{busy_message(host, holder)}, still after waiting {waited_s:.0f} s "
            "(--wait-timeout): this run was not started (nothing was touched)")


class HostsBusy(ChipperfError):
    """A host of the run is leased by another run (and the run does not wait, or waited
    its time out)."""

    def __init__(self, host: str, holder: Holder | None, message: str):
        super().__init__(message)
        self.host, self.holder = host, holder


@dataclass(frozen=True)
class Wait:
    """``chipperf run --wait``: wait for busy hosts, polling, up to ``timeout_s`` (None: no end)."""
    timeout_s: float | None = None
    poll_s: float = 3.0


class ClusterLease:
    """The leases a run holds, host -> its held take script."""

    def __init__(self, holder: Holder, base: str = LEASE_BASE):
        self.holder, self.base = holder, base
        self.held: dict[str, Held] = {}
        self.taken_over: dict[str, Holder] = {}   # host -> whose abandoned lease this run took

    @classmethod
    def take(cls, hosts: Mapping[str, Host], wait: Wait | None = None, *,
             base: str = LEASE_BASE, holder: Holder | None = None,
             sleep: Callable[[float], None] = time.sleep) -> "ClusterLease":
        """Every host's lease, in sorted order; HostsBusy (with what was taken released)
        when one is held and ``wait`` is None or runs out."""
        lease = cls(holder or Holder.of_this_process(), base)
        try:
            for name in sorted(hosts):
                lease._take_one(hosts[name], wait, sleep)
        except BaseException:
            lease.release()
            raise
        return lease

    def _take_one(self, host: Host, wait: Wait | None, sleep: Callable[[float], None]) -> None:
        started, shown = time.monotonic(), None
        while True:
            busy = self._try(host)
            if busy is None:
                return
            holder = busy[0]
            if wait is None:
                raise HostsBusy(host.name, holder, refused_message(host.name, holder))
            waited = time.monotonic() - started
            if wait.timeout_s is not None and waited >= wait.timeout_s:
                raise HostsBusy(host.name, holder, waited_message(host.name, holder, waited))
            if holder != shown:
                limit = f"up to {wait.timeout_s:g} s" if wait.timeout_s is not None else "no limit"
                log.warning("%s: waiting for it (--wait, asking every %g s, %s)",
                            busy_message(host.name, holder), wait.poll_s, limit)
                shown = holder
            sleep(wait.poll_s)

    def _try(self, host: Host) -> tuple[Holder | None] | None:
        """None when the lease is now held, (the holder,) when another run has it."""
        try:
            held = host.hold(take_argv(self.base, self.holder.to_json()), timeout=30)
        except HoldEnded as exc:
            if exc.exit_code == BUSY:
                holder = holder_of(exc.said, "busy")
                if holder is not None and self._ended_holder_gone(host, holder, exc.said):
                    return self._try(host)
                return (holder,)
            log.warning("[%s] no cluster lease (%s: flock(1) and a writable %s are needed): "
                        "a second run there would not be refused", host.name, exc, self.base)
            return None
        except HostError as exc:   # the run goes on; preflight reports a host it cannot reach
            log.warning("[%s] no cluster lease (%s): a second run there would not be refused",
                        host.name, exc)
            return None
        self.held[host.name] = held
        was = holder_of(held.said, "was")
        if was is not None:
            self.taken_over[host.name] = was
            log.warning("%s", takeover_message(host.name, was))
        return None

    def _ended_holder_gone(self, host: Host, holder: Holder, said: str) -> bool:
        """For a holder whose master process is gone from this master: True once the host's
        shell holding its lease is ended (a line says so), False when it is not."""
        shell = _shell_pid(said)
        if not holder.gone_here() or shell is None:
            return False
        log.warning("%s", ended_holder_message(host.name, holder))
        try:
            ended = host.run(break_argv(self.base, shell), timeout=30, check=False).ok
        except HostError as exc:
            log.warning("[%s] the lease shell %d could not be ended: %s", host.name, shell, exc)
            return False
        if not ended:
            log.warning("[%s] the lease shell %d could not be ended (it is no lease shell, or "
                        "another run took the lease meanwhile)", host.name, shell)
        return ended

    def name_run(self, run_id: str, result_dir: str) -> None:
        """The run has its id and dir now: every host's record says so."""
        self.holder = Holder(**{**asdict(self.holder), "run_id": run_id, "result_dir": result_dir})
        for name, held in self.held.items():
            _send(name, held, f"record {self.holder.to_json()}")

    def release(self) -> None:
        """Each host's record goes, then its lock (the script ends); idempotent."""
        for name, held in list(self.held.items()):
            _send(name, held, "release")
        ending, self.held = list(self.held.values()), {}
        each(ending, lambda h: h.end(timeout=10), "release leases", key=id, raise_errors=False)

    def previous_holder(self, host: str) -> str | None:
        """What the lease knows of another run on ``host``: the one whose lease was taken over."""
        was = self.taken_over.get(host)
        return None if was is None else f"{was.describe()}, whose lease this run took over " \
                                        "(its master is gone; what it started may still run)"


def _shell_pid(said: str) -> int | None:
    """The holding shell's pid from the take script's `shell <pid>` line (None: not said)."""
    for line in said.splitlines():
        if line.startswith("shell ") and line[6:].strip().isdigit():
            return int(line[6:].strip())
    return None


def _send(host: str, held: Held, line: str) -> None:
    try:
        held.send(line)
    except Exception as exc:   # the host is away (paramiko, OSError): its lease ends with the channel
        log.warning("[%s] the cluster lease did not take `%s`: %s", host, line.split()[0], exc)
