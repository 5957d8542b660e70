"""Bad input, as a table (issue 42): each row is what an operator types or writes, run
through `chipperf` as from a shell; each must end in exit 2 with one message that holds the
row's fragment, no internal error, and nothing created (no result root, run dir or store)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Callable, NamedTuple

import pytest

from chipperf.cli import main

CLUSTER = "HOSTS = ['127.0.0.1']\n"
TEST = ("VENDOR = 'cpu'\nCASES = {'resnet50:pytorch_2.13:xeon:1:1:REPEAT': '/tmp/d'}\n"
        "SHM_SIZE = '4g'\nROUND_TIMEOUT = 3600\n")
YAML_TEST = "vendor: cpu\ncases:\n  'resnet50:pytorch_2.13:xeon:1:1:1': /tmp/d\n"


def config_py(repeat: str = "1", **settings: str) -> bytes:
    text = TEST.replace("REPEAT", repeat)
    for key, value in settings.items():
        text += f"{key} = {value}\n"
    return text.encode()


class Row(NamedTuple):
    files: dict[str, bytes]            # written in an empty folder, the working directory
    argv: list[str]                    # `chipperf ARGV` run there
    fragment: str                      # in what it prints


def plan(test: str = "test_conf.py", cluster: str = "cluster_conf.py") -> list[str]:
    return ["plan", "--cluster", cluster, "--test", test]


def served_host_yaml(overrides: str, image: str = "pytorch_vllm_0.32", vendor: str = "cpu",
                     chip: str = "xeon") -> dict[str, bytes]:
    """An inference host.yaml running llama3_8b in a cpu image (the serving one unless
    ``image`` names another; another vendor's with ``vendor`` and ``chip``) with ``overrides``."""
    return {"host.yaml": (f'HOSTS: ["127.0.0.1"]\nVENDOR: {vendor}\nCHIP: {chip}\nCASES:\n'
                          f'  "llama3_8b:{image}": /tmp/d\n'
                          f"OVERRIDES: {overrides}\n").encode()}


SERVED_PLAN = ["plan", "--suite", "inference", "--host-config", "host.yaml"]

ROWS: dict[str, Callable[[Path], Row]] = {
    "served concurrency 0": lambda d: Row(
        served_host_yaml("{engine: vllm_server, serve_concurrency: [0]}"), SERVED_PLAN,
        "serve_concurrency: every value must be a whole number >= 1, got [0]"),
    "served fallback unknown": lambda d: Row(
        served_host_yaml("{engine: vllm_server, serve_fallback: sglang}"), SERVED_PLAN,
        "serve_fallback: must be null or one of transformers, got 'sglang'"),
    "served lm-eval limit 0": lambda d: Row(
        served_host_yaml("{engine: vllm_server, serve_lmeval_limit: 0}"), SERVED_PLAN,
        "serve_lmeval_limit: must be null (every example) or a whole number >= 1 of examples "
        "per task, got 0"),
    "served lm-eval tasks, image without lm-eval": lambda d: Row(
        served_host_yaml("{engine: transformers_server, serve_lmeval_tasks: [chipperf_arith]}",
                         "pytorch_2.13"), SERVED_PLAN,
        "serve_lmeval_tasks asks lm-eval, which image folder"),
    "served SLO 0": lambda d: Row(
        served_host_yaml("{engine: vllm_server, serve_slo_ttft_ms: 0}"), SERVED_PLAN,
        "serve_slo_ttft_ms: must be null or a number > 0, got 0"),
    "served port out of range": lambda d: Row(
        served_host_yaml("{engine: vllm_server, serve_port: 70000}"), SERVED_PLAN,
        "serve_port: must be a TCP port 1..65535, got 70000"),
    "served model_dir relative": lambda d: Row(
        served_host_yaml("{engine: vllm_server, model_dir: ckpt/llama}"), SERVED_PLAN,
        "model_dir: must be null or an absolute path (the folder as the case's container sees "
        "it), got 'ckpt/llama'"),
    "served engine vllm_server, image without vLLM": lambda d: Row(
        served_host_yaml("{engine: vllm_server}", "pytorch_2.13"), SERVED_PLAN,
        "engine 'vllm_server' needs the 'vllm' module, which image folder "),
    "served engine sglang": lambda d: Row(
        served_host_yaml("{engine: sglang_server}"), SERVED_PLAN,
        "engine 'sglang_server' is SGLang's OpenAI server, which chipperf runs on vendor nvidia "
        "only (NVIDIA GPUs, image folder pytorch_sglang_0.5; no chipperf image has a build of it "
        "for vendor 'cpu')"),
    "served engine TensorRT-LLM": lambda d: Row(
        served_host_yaml("{engine: trtllm}"), SERVED_PLAN,
        "engine 'trtllm' is not an engine name: TensorRT-LLM serves as engine 'trtllm_server'"),
    "served engine sglang, nvidia image without it": lambda d: Row(
        served_host_yaml("{engine: sglang_server}", "pytorch_2.13", "nvidia", "H100"), SERVED_PLAN,
        "engine 'sglang_server' needs the 'sglang' module, which image folder "),
    "offline vllm on cpu": lambda d: Row(
        served_host_yaml("{engine: vllm}"), SERVED_PLAN,
        "engine 'vllm' is vLLM's offline engine, which chipperf runs on vendor nvidia only "
        "(NVIDIA GPUs), and vendor 'cpu' selects it: serve with engine vllm_server"),
    "LoadGen scenario unknown": lambda d: Row(
        served_host_yaml("{scenarios: [offline, steady]}", "pytorch_2.13"), SERVED_PLAN,
        "scenarios: 'steady' is not a MLPerf LoadGen scenario this case runs: use offline, "
        "single_stream, server"),
    "LoadGen target QPS 0": lambda d: Row(
        served_host_yaml("{server_rates: [0]}", "pytorch_2.13"), SERVED_PLAN,
        "server_rates: LoadGen's server_target_qps must be > 0, got [0]"),
    "repeat 10**20": lambda d: Row({"test_conf.py": config_py("1" + "0" * 20)}, plan(),
                                   "repeat 100000000000000000000 is over the maximum of 1000"),
    "ROUND_TIMEOUT 1e999": lambda d: Row({"test_conf.py": config_py(ROUND_TIMEOUT="1e999")}, plan(),
                                         "ROUND_TIMEOUT: inf is not valid (over the maximum"),
    "ROUND_TIMEOUT 400 digits": lambda d: Row(
        {"test_conf.py": config_py(ROUND_TIMEOUT="9" * 400)}, plan(),
        "(400 characters) is not valid (a number too large to be seconds"),
    "round_timeout .nan (YAML)": lambda d: Row(
        {"test.yaml": (YAML_TEST + "round_timeout: .nan\n").encode()}, plan("test.yaml"),
        "round_timeout: nan is not valid (not a number (NaN))"),
    "MONITOR_INTERVAL -inf": lambda d: Row(
        {"test_conf.py": config_py(MONITOR_INTERVAL="-1e999")}, plan(), "must be > 0"),
    "UTF-16 YAML": lambda d: Row({"test.yaml": YAML_TEST.encode("utf-16")}, plan("test.yaml"),
                                 "the file is UTF-16-encoded; chipperf reads UTF-8 configs"),
    "Latin-1 YAML": lambda d: Row({"test.yaml": (YAML_TEST + "# café\n").encode("latin-1")},
                                  plan("test.yaml"), "test.yaml:4: byte 0xe9 is not UTF-8"),
    "Latin-1 .py": lambda d: Row({"test_conf.py": config_py() + "# café\n".encode("latin-1")},
                                 plan(), "test_conf.py:5: byte 0xe9 is not UTF-8"),
    "UTF-16 .py": lambda d: Row({"test_conf.py": config_py().decode().encode("utf-16")}, plan(),
                                "the file is UTF-16-encoded; chipperf reads UTF-8 configs"),
    "dict key twice (.py)": lambda d: Row(
        {"test_conf.py": config_py().replace(b"'/tmp/d'}", b"'/tmp/d',\n"
                                             b"  'resnet50:pytorch_2.13:xeon:1:1:1': '/tmp/e'}")},
        plan(), "CASES: key 'resnet50:pytorch_2.13:xeon:1:1:1' is given twice (lines 2 and 3)"),
    "list as a dict key (.py)": lambda d: Row(
        {"test_conf.py": config_py(EXTRA="{['a']: 1}")}, plan(),
        "EXTRA: \"['a']\" cannot be a key or a set member (a list)"),
    "duplicate YAML key": lambda d: Row(
        {"test.yaml": (YAML_TEST + "vendor: nvidia\n").encode()}, plan("test.yaml"),
        "test.yaml:4: key 'vendor' is given twice (lines 1 and 4): keep one of them"),
    "SHM_SIZE not a size": lambda d: Row({"test_conf.py": config_py(SHM_SIZE="'lots'")}, plan(),
                                         "SHM_SIZE: 'lots' is not valid (not a docker size"),
    "SHM_SIZE zero": lambda d: Row({"test_conf.py": config_py(SHM_SIZE="'0g'")}, plan(),
                                   "SHM_SIZE: '0g' is not valid (must be more than 0)"),
    "BASE_IMAGE with a space": lambda d: Row(
        {"test_conf.py": config_py(BASE_IMAGE="'my registry/torch'")}, plan(),
        "BASE_IMAGE: 'my registry/torch' is not valid (not a docker image reference"),
    "PIP_INDEX_URL without scheme": lambda d: Row(
        {"test_conf.py": config_py(PIP_INDEX_URL="'pypi.example.com/simple'")}, plan(),
        "PIP_INDEX_URL: 'pypi.example.com/simple' is not valid (not an http://"),
    "SSH_KEY missing": lambda d: Row(
        {"cluster_conf.py": (CLUSTER + f"SSH_KEY = '{d}/no-key'\n").encode()}, plan(),
        "SSH_KEY: '" + str(d) + "/no-key' is not valid (no such file on this master)"),
    "KNOWN_HOSTS missing, remote host": lambda d: Row(
        {"cluster_conf.py": f"HOSTS = ['10.9.9.9']\nKNOWN_HOSTS = '{d}/kh'\n".encode()}, plan(),
        "KNOWN_HOSTS: '" + str(d) + "/kh': no such file on this master"),
    "KNOWN_HOSTS a folder": lambda d: Row(
        {"cluster_conf.py": f"HOSTS = ['10.9.9.9']\nKNOWN_HOSTS = '{d}'\n".encode()}, plan(),
        "is not valid (a folder, not a file)"),
    "WORK_ROOT relative": lambda d: Row(
        {"cluster_conf.py": (CLUSTER + "WORK_ROOT = 'rel/dir'\n").encode()}, plan(),
        "WORK_ROOT: 'rel/dir' is not valid (not an absolute path)"),
    "WORK_ROOT with ':'": lambda d: Row(
        {"cluster_conf.py": (CLUSTER + "WORK_ROOT = '/tmp/a:b'\n").encode()}, plan(),
        "holds ':' or a line break, which a docker volume cannot take"),
    "RESULT_ROOT empty": lambda d: Row({"test_conf.py": config_py(RESULT_ROOT="''")}, plan(),
                                       "RESULT_ROOT: '' is not valid (empty)"),
    "config is a folder": lambda d: Row({"conf/keep": b""}, plan("conf"),
                                        "conf: a folder, not a file"),
    "config with null bytes": lambda d: Row({"test_conf.py": b"\x00\x01binary"}, plan(),
                                            "test_conf.py: Python syntax error: source code"),
    "vendor misspelt": lambda d: Row({"test_conf.py": config_py().replace(b"'cpu'", b"'nvidai'")},
                                     plan(), "VENDOR 'nvidai' is unknown (did you mean nvidia?)"),
    "case misspelt": lambda d: Row({"test_conf.py": config_py().replace(b"resnet50", b"resnet5")},
                                   plan(), "(did you mean resnet50:pytorch?)"),
    "serve --port 99999": lambda d: Row({}, ["serve", "--port", "99999"],
                                        "argument --port: 99999 is outside 1..65535"),
    "serve without a store": lambda d: Row({}, ["serve", "--db", "s.sqlite"],
                                           "no chipperf store there yet"),
    "leaderboard --html in a missing folder": lambda d: Row(
        {}, ["leaderboard", "--html", "nowhere/board.html"], "--html nowhere/board.html: the folder"),
    "leaderboard without --html or --text": lambda d: Row(
        {}, ["leaderboard"], "chipperf leaderboard: give --html FILE, --text or both"),
    "leaderboard --html a folder": lambda d: Row(
        {"a/keep": b""}, ["leaderboard", "--html", "a"], "--html a: is a folder"),
    "ingest a file": lambda d: Row({"notes.txt": b"hi"}, ["ingest", "notes.txt"],
                                   "notes.txt: not a directory"),
    "ingest a folder that is no run": lambda d: Row(
        {"stuff/keep": b""}, ["ingest", "stuff"], "stuff: not a run directory (no run.json)"),
    "collect a folder that is no run": lambda d: Row(
        {"stuff/keep": b""}, ["collect", "stuff"], "stuff: not a run directory (no run.json)"),
    "collect a file": lambda d: Row({"notes.txt": b"hi"}, ["collect", "notes.txt"],
                                    "notes.txt: not a directory"),
    "history --k -3": lambda d: Row({}, ["history", "resnet50", "--k", "-3"],
                                    "argument --k: -3: give a number more than 0"),
    "history --window 0": lambda d: Row({}, ["history", "resnet50", "--window", "0"],
                                        "argument --window: 0: give a whole number of at least 1"),
    "ingest --jobs -1": lambda d: Row({}, ["ingest", "x", "--jobs", "-1"],
                                      "argument --jobs: -1: give a whole number of at least 0"),
    "run --wait-timeout nan": lambda d: Row({}, ["run", *plan()[1:], "--wait-timeout", "nan"],
                                            "argument --wait-timeout: nan: give a number at least 0"),
    "selftest --budget nan": lambda d: Row({}, ["selftest", "--budget", "nan"],
                                           "argument --budget: nan: give a number more than 0"),
    "monitor --out a file": lambda d: Row({"notes.txt": b"hi"}, ["monitor", "--out", "notes.txt"],
                                          "--out notes.txt: is a file, not a folder"),
    "monitor --vendor misspelt": lambda d: Row(
        {}, ["monitor", "--out", "m", "--vendor", "nvidai"],
        "--vendor nvidai: no such vendor (did you mean nvidia?)"),
    "selftest --vendor misspelt": lambda d: Row(
        {}, ["selftest", "--vendor", "nvidai", "--result-root", "r"],
        "--vendor nvidai: no such vendor (did you mean nvidia?)"),
    "monitor --interval 0": lambda d: Row({}, ["monitor", "--out", "m", "--interval", "0"],
                                          "argument --interval: 0: give a number more than 0"),
    "monitor --duration -5": lambda d: Row({}, ["monitor", "--out", "m", "--duration", "-5"],
                                           "argument --duration: -5: give a number at least 0"),
    "report a folder that is no run": lambda d: Row(
        {"stuff/keep": b""}, ["report", "stuff"], "stuff: not a run directory (no run.json)"),
    "report --measured-peaks missing": lambda d: Row(
        {"r/run.json": b"{}", "r/keep": b""}, ["report", "r", "--measured-peaks", "nowhere"],
        "--measured-peaks nowhere: measured peaks: nowhere/run.json cannot be read"),
    "run --db of no known kind": lambda d: Row({}, ["run", *plan()[1:], "--db", "bogus://x"],
                                               "--db bogus://x: not a database URL this install"),
    "run --db in a missing folder": lambda d: Row(
        {}, ["run", *plan()[1:], "--db", "nowhere/s.sqlite"], "--db nowhere/s.sqlite: the folder"),
    "collect --db of no known kind": lambda d: Row(
        {"r/run.json": b"{}"}, ["collect", "r", "--db", "bogus://x"],
        "--db bogus://x: not a database URL this install can open"),
    "cases --case-root missing": lambda d: Row({}, ["cases", "--case-root", "nowhere"],
                                               "--case-root nowhere: no such directory"),
}


def run_cli(argv: list[str]) -> int:
    try:
        return main(argv)
    except SystemExit as exc:   # argparse's own refusal
        return int(exc.code or 0)


def write(folder: Path, files: dict[str, bytes]) -> None:
    defaults = {"cluster_conf.py": CLUSTER.encode(), "test_conf.py": config_py()}
    for name, data in {**defaults, **files}.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_bytes(data)


def tree(folder: Path) -> set[str]:
    return {str(p.relative_to(folder)) for p in folder.rglob("*")}


@pytest.mark.parametrize("name", ROWS)
def test_bad_input_exits_2_with_one_clear_message_and_creates_nothing(
        name, tmp_path, monkeypatch, capsys) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("RESULTS_DB", raising=False)
    row = ROWS[name](tmp_path)
    write(tmp_path, row.files)
    before = tree(tmp_path)
    assert run_cli(row.argv) == 2
    said = capsys.readouterr()
    text = said.out + said.err
    assert row.fragment in text
    assert "internal error" not in text and "Traceback" not in text
    assert tree(tmp_path) == before   # no result/, run dir or store file


def test_the_good_configs_of_the_table_plan(tmp_path, monkeypatch, capsys) -> None:
    """The rows differ from a config that plans: each refusal is its own bad input."""
    monkeypatch.chdir(tmp_path)
    write(tmp_path, {"test.yaml": YAML_TEST.encode()})
    assert run_cli(plan()) == 0
    assert run_cli(plan("test.yaml")) == 0
    assert not (tmp_path / "result").exists()   # a plan writes nothing either


def test_an_unknown_key_is_warned_with_the_closest_known_name(tmp_path, caplog) -> None:
    from chipperf.config.load import parse_test

    path = tmp_path / "test_conf.py"
    path.write_bytes(config_py(ROUND_TIMOUT="30"))
    parse_test(path)
    assert "ROUND_TIMOUT is not used by chipperf; ignored (did you mean ROUND_TIMEOUT?)" \
        in caplog.text


def test_the_known_hosts_fix_quotes_the_path() -> None:
    from chipperf.remote.host import keyscan_command

    assert keyscan_command(22, "h1", "/tmp/a b;rm -rf x") == \
        "ssh-keyscan -p 22 h1 >> '/tmp/a b;rm -rf x'"
    assert keyscan_command(2222, "h1", "~/.ssh/known_hosts") == \
        f"ssh-keyscan -p 2222 h1 >> {os.path.expanduser('~')}/.ssh/known_hosts"


def test_a_long_plan_reads_each_vendor_config_once(tmp_path, monkeypatch) -> None:
    """repeat 1000 (the maximum): the plan holds 1000 rounds and reads the vendor config
    once, not once per node of every round."""
    from chipperf.cli import load_all
    from chipperf.config import vendorconfig
    from chipperf.plan import make_plan

    write(tmp_path, {"test_conf.py": config_py("1000")})
    cluster, test, catalogue = load_all(str(tmp_path / "cluster_conf.py"),
                                        str(tmp_path / "test_conf.py"), None)
    reads = []
    real = vendorconfig._check_vendor_config
    monkeypatch.setattr(vendorconfig, "_check_vendor_config",
                        lambda *a: reads.append(a) or real(*a))
    plan_ = make_plan(cluster, test, catalogue, "run1", tmp_path / "result")
    assert len(plan_.cases[0].rounds) == 1000
    assert len(reads) == 1
