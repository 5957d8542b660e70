"""Fixtures for whole runs of `chipperf run` on the simulated cluster."""

from __future__ import annotations

import fcntl
import hashlib
import os
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parents[2]
DATA_ROOT = Path("/var/lib/chipperf-test/data")
WORK_ROOT = "/tmp/chipperf-e2e"


@dataclass
class Run:
    returncode: int
    output: str
    run_dir: Path | None

    def __str__(self) -> str:
        return f"exit {self.returncode}\n{self.output[-8000:]}"


def made_whole(target: Path, argv: list[str], timeout: float = 600) -> Path:
    """``argv`` + a private folder beside ``target`` (the preparer writes there), renamed
    into place: a run that finds ``target`` finds it whole, and two sessions (or two
    pytest-xdist workers) preparing at once do not mix their files."""
    target.parent.mkdir(parents=True, exist_ok=True)
    scratch = target.parent / f".{target.name}.{os.getpid()}"
    shutil.rmtree(scratch, ignore_errors=True)
    subprocess.run([*argv, str(scratch)], check=True, timeout=timeout, stdout=subprocess.DEVNULL)
    try:
        scratch.rename(target)
    except OSError:                     # another session put it there first
        shutil.rmtree(scratch, ignore_errors=True)
    return target


def set_aside(stale: Path) -> None:
    """Move ``stale`` out of the way and delete it (whoever moves it first deletes it)."""
    aside = stale.parent / f".{stale.name}.stale.{os.getpid()}"
    try:
        stale.rename(aside)
    except OSError:                     # another session moved it first
        return
    shutil.rmtree(aside, ignore_errors=True)


@pytest.fixture(scope="session")
def digits_dir() -> Path:
    """scikit-learn's handwritten digits in ImageNet layout, on every (shared-filesystem) host."""
    target = DATA_ROOT / "digits"
    if (target / "dataset.json").is_file():
        return target
    if target.exists():                 # a copy older than the card: remade
        set_aside(target)
    return made_whole(target, [sys.executable, str(REPO / "training/benchmarks/resnet50/pytorch/"
                                                   "prepare_digits.py"), "--force"])


def prepared_text_dir(name: str, case_dir: Path, *inputs: str) -> Path:
    """``case_dir/prepare_data.py --output`` under DATA_ROOT, made once per version of the
    preparing code (the folder name carries a hash of ``inputs``, files of ``case_dir``)."""
    digest = hashlib.sha256()
    for file in inputs:
        digest.update(file.encode() + b"\0" + (case_dir / file).read_bytes())
    target = DATA_ROOT / f"{name}-{digest.hexdigest()[:12]}"
    if target.is_dir():
        return target
    return made_whole(target, [sys.executable, str(case_dir / "prepare_data.py"), "--output"])


@pytest.fixture(scope="session")
def bert_text_dir() -> Path:
    """The bert case's MLM shards (WordPiece vocab 1024, seq 64) from text already on Debian."""
    return prepared_text_dir("bert-mlm", REPO / "training/benchmarks/bert/pytorch",
                             "prepare_data.py", "../../../../chipperf_runtime/wordpiece.py",
                             "../../../../chipperf_runtime/training/textlm/corpus.py")


@pytest.fixture(scope="session")
def llama_text_dir() -> Path:
    """The llama2_7b case's byte-level token shards from text already on Debian."""
    return prepared_text_dir("llama2-bytes", REPO / "training/benchmarks/llama2_7b/deepspeed",
                             "prepare_data.py", "../../../../chipperf_runtime/training/textlm/corpus.py",
                             "../../../../chipperf_runtime/training/textlm/bytelevel.py")


@pytest.fixture(scope="session")
def aquila2_text_dir() -> Path:
    """The aquila2_7b case's byte-level token shards (its in-container keys run on them)."""
    return prepared_text_dir("aquila2-bytes", REPO / "training/benchmarks/aquila2_7b/pytorch",
                             "prepare_data.py", "../../../../chipperf_runtime/training/textlm/corpus.py",
                             "../../../../chipperf_runtime/training/textlm/bytelevel.py")


@pytest.fixture(scope="session")
def llm_text_dir() -> Path:
    """The llama3_8B and mixtral_8x7B cases' byte-level token shards (the same layout)."""
    return prepared_text_dir("llm-bytes", REPO / "training/benchmarks/llama3_8B/pytorch",
                             "prepare_data.py", "../../../../chipperf_runtime/training/textlm/corpus.py",
                             "../../../../chipperf_runtime/training/textlm/bytelevel.py")


@pytest.fixture(scope="session")
def gpt2_text_dir() -> Path:
    """The gpt2 case's token shards (a byte-level BPE of 1,024 tokens) from text on Debian."""
    return prepared_text_dir("gpt2-bpe", REPO / "training/benchmarks/gpt2/pytorch",
                             "prepare_data.py", "../../../../chipperf_runtime/training/textlm/corpus.py")


@pytest.fixture(scope="session")
def t5_text_dir() -> Path:
    """The t5_small case's generated summarisation pairs (FlagPerf's t5_small layout)."""
    return prepared_text_dir("t5-pairs", REPO / "training/benchmarks/t5_small/pytorch",
                             "prepare_data.py")


@pytest.fixture(scope="session")
def w2v_audio_dir() -> Path:
    """The wav2vec2 case's synthetic speech-like utterances in fairseq's manifest layout."""
    return prepared_text_dir("w2v-audio", REPO / "training/benchmarks/wav2vec2/pytorch",
                             "prepare_data.py")


@pytest.fixture(scope="session")
def shapes_dir() -> Path:
    """The detection cases' generated shapes in COCO 2017's layout (prepare_shapes.py's
    defaults: 256 train and 64 val images of 64 x 64), made once per version of the script."""
    script = REPO / "training/benchmarks/retinanet/pytorch/prepare_shapes.py"
    target = DATA_ROOT / f"shapes-{hashlib.sha256(script.read_bytes()).hexdigest()[:12]}"
    if target.is_dir():
        return target
    return made_whole(target, [sys.executable, str(script)], timeout=300)


def write_configs(where: Path, hosts: list[str], cases: dict[str, str], *, ssh_port: int = 22,
                  ssh_key: str, known_hosts: str, extra_test: str = "", extra_cluster: str = "",
                  master_port: int = 29517) -> tuple[Path, Path]:
    cluster = where / "cluster_conf.py"
    cluster.write_text(f"HOSTS = {hosts!r}\nSSH_PORT = {ssh_port}\nSSH_USER = 'root'\n"
                       f"SSH_KEY = {ssh_key!r}\nKNOWN_HOSTS = {known_hosts!r}\n"
                       f"MASTER_PORT = {master_port}\nWORK_ROOT = {WORK_ROOT!r}\nCONNECT_TIMEOUT = 5\n"
                       + extra_cluster)
    test = where / "test_conf.py"
    test.write_text(f"VENDOR = 'cpu'\nCASES = {cases!r}\nSHM_SIZE = '1g'\n"
                    f"RESULT_ROOT = {str(where / 'result')!r}\nROUND_TIMEOUT = 900\n" + extra_test)
    return cluster, test


def chipperf(*args: str, cwd: Path, timeout: float = 1800) -> Run:
    proc = subprocess.run([sys.executable, "-m", "chipperf.cli", *args], cwd=cwd, capture_output=True,
                          text=True, timeout=timeout, env={**os.environ, "PYTHONPATH": str(REPO)})
    output = proc.stdout + proc.stderr
    return Run(proc.returncode, output, latest_run_dir(cwd / "result"))


def run_suite(tmp_path: Path, sim_cluster, suite: str, cases: dict[str, str], *, hosts: int = 2,
              nproc: int = 2, master_port: int = 29531, **keys: object
              ) -> tuple[subprocess.CompletedProcess, Path | None]:
    """``<suite>/run.py`` (base or operation) with FlagPerf's host.yaml form on the first
    ``hosts`` simulated hosts, ``nproc`` ranks each (``keys``: more host.yaml keys, e.g.
    BENCHMARKS_OR_TOOLKITS); returns the process and its run dir."""
    host_yaml = tmp_path / "host.yaml"
    host_yaml.write_text(yaml.safe_dump({
        "HOSTS": [h.address for h in sim_cluster.hosts[:hosts]], "NPROC_PER_NODE": nproc,
        "SSH_USER": "root", "SSH_KEY": sim_cluster.ssh_key, "KNOWN_HOSTS": sim_cluster.known_hosts,
        "VENDOR": "cpu", "CHIP": "xeon", "SHM_SIZE": "1g",
        "FLAGPERF_LOG_PATH": str(tmp_path / "result"), "MASTER_PORT": master_port,
        "WORK_ROOT": WORK_ROOT, "ROUND_TIMEOUT": 900, "CASES": cases, **keys}))
    proc = subprocess.run([sys.executable, str(REPO / suite / "run.py"), "--host-config",
                           str(host_yaml)], cwd=tmp_path, capture_output=True, text=True,
                          timeout=3000, env={**os.environ, "PYTHONPATH": str(REPO)})
    return proc, latest_run_dir(tmp_path / "result")


def session_shared_dir(tmp_path_factory) -> Path:
    """A folder every pytest-xdist worker of this session sees (the session's base temp
    folder; without xdist, this process's)."""
    basetemp = tmp_path_factory.getbasetemp()
    return basetemp.parent if os.environ.get("PYTEST_XDIST_WORKER") else basetemp


@pytest.fixture(scope="session")
def gemm_peak_run(tmp_path_factory, sim_cluster) -> Path:
    """A base/ run of computation-FP32 on one simulated host, one rank: the measured GEMM
    peak that training cases' MFU divides by on the cpu vendor (whose spec sheet has none).
    Made once per session: the first pytest-xdist worker to ask runs it, under a lock, and
    the others read its run dir."""
    shared = session_shared_dir(tmp_path_factory)
    with open(shared / "gemm-peak.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        made = shared / "gemm-peak.run-dir"
        if made.is_file():
            return Path(made.read_text())
        where = tmp_path_factory.mktemp("gemm-peak")
        proc, run_dir = run_suite(where, sim_cluster, "base", {"computation-FP32": "pytorch_2.13"},
                                  hosts=1, nproc=1, master_port=29533)
        assert proc.returncode == 0 and run_dir is not None, (proc.stdout[-4000:]
                                                              + proc.stderr[-8000:])
        made.write_text(str(run_dir))
        return run_dir


def latest_run_dir(root: Path) -> Path | None:
    runs = sorted(root.glob("run*")) if root.is_dir() else []
    return runs[-1] if runs else None


def leftovers(sim_cluster, run_id: str) -> list[str]:
    """Containers (by the run's label) and work dirs the run left on any simulated host."""
    import docker

    found = []
    for host in sim_cluster.hosts:
        client = docker.DockerClient(base_url=host.docker_host)
        try:
            for c in client.containers.list(all=True, filters={"label": f"chipperf.run={run_id}"}):
                found.append(f"{host.name}: container {c.name}")
        finally:
            client.close()
    found.extend(f"work dir {path}" for path in work_dirs_left(sim_cluster, run_id))
    return found


def work_dirs_left(sim_cluster, run_id: str) -> list[Path]:
    """What is left of the run's work dir ``WORK_ROOT/run_id``: the dirs (and lease files)
    of this session's hosts in it, or the folder itself when it is empty. Dirs of other
    hosts are not the run's: a run of another pytest-xdist worker, on that worker's hosts,
    that started in the same second has the same run id."""
    run_root = Path(WORK_ROOT) / run_id
    if not run_root.exists():
        return []
    inside = sorted(run_root.iterdir())
    if not inside:
        return [run_root]
    ours = {h.address for h in sim_cluster.hosts}
    return [path for path in inside if path.name.removesuffix(".lease") in ours]


class Background:
    """`chipperf run` in the background, its console in tmp_path/console.log."""

    def __init__(self, tmp_path: Path, cluster: Path, test: Path):
        self.log = tmp_path / "console.log"
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "chipperf.cli", "run", "--cluster", str(cluster), "--test",
             str(test)], cwd=tmp_path, stdout=self.log.open("w"), stderr=subprocess.STDOUT,
            env={**os.environ, "PYTHONPATH": str(REPO)})

    def wait_for(self, text: str, count: int = 1, timeout: float = 600) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.log.exists() and self.log.read_text().count(text) >= count:
                return
            assert self.proc.poll() is None, self.log.read_text()[-4000:]
            time.sleep(0.5)
        raise AssertionError(f"{text!r} never appeared:\n{self.log.read_text()[-4000:]}")

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
            try:
                self.proc.wait(timeout=120)
            except subprocess.TimeoutExpired:
                self.proc.kill()


@pytest.fixture
def background():
    started: list[Background] = []

    def start(tmp_path, cluster, test) -> Background:
        started.append(Background(tmp_path, cluster, test))
        return started[-1]

    yield start
    for run in started:
        run.stop()


def mlperf_compliant(rank_log: Path, benchmark: str) -> None:
    """mlperf-logging's compliance checker (PyPI, requirements-test.txt) accepts the rank log
    as the case wrote it, under the ruleset chipperf_runtime.mllog names for the benchmark, in
    the open division (docs/results.md "MLPerf logs")."""
    from chipperf_runtime import mllog
    checked = subprocess.run(
        [sys.executable, "-m", "mlperf_logging.compliance_checker", "--usage", "training",
         "--ruleset", mllog.RULESETS[benchmark], "--log_output",
         str(rank_log.parent / "mlperf_checker.log"), str(rank_log)],
        capture_output=True, text=True, timeout=300)
    said = checked.stdout + checked.stderr
    assert checked.returncode == 0 and "SUCCESS" in said, said[-4000:]
    keys = [line for line in rank_log.read_text().splitlines() if mllog.MARKER in line]
    assert sum('"key": "run_start"' in k for k in keys) == 1, keys[:5]
    assert sum('"key": "run_stop"' in k for k in keys) == 1, keys[-5:]


LLM_PROMPTS = Path("/var/lib/chipperf-test/data/llm-prompts")


@pytest.fixture(scope="session")
def prompts() -> Path:
    """llama3_8b's prompt set and tokenizer, made once by the case's own preparer from text on
    the machine (the licences Debian ships)."""
    if (LLM_PROMPTS / "tokenizer.json").is_file():
        return LLM_PROMPTS
    if LLM_PROMPTS.exists():            # a part-made copy
        set_aside(LLM_PROMPTS)
    return made_whole(LLM_PROMPTS, [sys.executable, str(REPO / "inference/benchmarks/llama3_8b/"
                                                        "pytorch/prepare_prompts.py"),
                                    "/usr/share/common-licenses"])
