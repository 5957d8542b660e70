"""The safe evaluator of FlagPerf-form .py configs, on FlagPerf's own files (tests/unit/data/flagperf)."""

from __future__ import annotations

from pathlib import Path

import pytest

from chipperf.config import load_cluster, load_test
from chipperf.config.load import parse_cluster, parse_test
from chipperf.config.pyconfig import read_py_config
from chipperf.errors import ConfigError

DATA = Path(__file__).resolve().parent / "data" / "flagperf"
CONF = DATA / "run_benchmarks" / "config"


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def test_flagperf_test_conf_loads_unchanged():
    test = load_test(CONF / "test_conf.py")
    assert test.result_root == "/home/FlagPerf/training/result/"  # FLAGPERF_PATH + "/result/"
    assert test.vendor == "nvidia" and test.container_opt == " --gpus all"
    assert test.clear_caches is True and test.shm_size == "32g"
    assert [str(c.key) for c in test.cases] == ["resnet50:pytorch_1.8:A100:1:8:1",
                                               "llama2_7b:deepspeed:A100:1:8:1"]


def test_kunlunxin_container_options_joined_with_plus():
    test = load_test(CONF / "test_conf_kunlunxin.py")
    devices = [o for o in test.container_opt.split() if o.startswith("--device=")]
    assert devices == [f"--device=/dev/xpu{i}" for i in range(8)] + ["--device=/dev/xpuctrl"]
    assert test.visible_devices_env == "XPU_VISIBLE_DEVICES"


def test_flagperf_cluster_conf_loads_and_hosts_ports_is_known():
    cluster, problems = parse_cluster(CONF / "cluster_conf.py")
    assert problems == []
    assert cluster.hosts == ("10.1.2.2", "10.1.2.3", "10.1.2.4") and cluster.master_port == 29501


def test_star_import_of_a_sibling_config():
    config = read_py_config(DATA / "kunlunxin" / "resnet50-pytorch" / "config" / "config_R300x1x8.py")
    assert config.problems == []
    values = config.public()
    assert values["dist_backend"] == "xccl" and values["vendor"] == "kunlunxin"
    assert values["eval_batch_size"] == values["train_batch_size"] == 32
    assert config.where("dist_backend").endswith("config_common.py:4")
    assert config.where("seed").endswith("config_R300x1x8.py:4")


def test_dict_calls_and_annotations():
    config = read_py_config(DATA / "nvidia" / "resnet50-tensorflow2" / "config" / "config_A100x1x8.py")
    assert config.problems == []
    values = config.public()
    assert values["runtime"]["distribution_strategy"] == "mirrored"
    assert values["train_dataset"]["image_size"] == 224
    assert values["target_accuracy"] == 0.76 and values["local_rank"] == -1


def test_fstrings_and_code_that_needs_execution():
    path = DATA / "cambricon" / "llama3_70B_continuetrain-flagscale" / "config" / "config_MLUx4x8.py"
    config = read_py_config(path)
    values = config.public()
    assert values["configyaml"] == ("/share/project/data_dir/FlagScale/build/cambricon_MLU/"
                                    "FlagScale/examples/llama/conf/config.yaml")
    assert values["steps"] == 500 and "flops" not in values
    assert config.problems == [
        f"{path}:11: a call to sys.path.append() needs real execution: chipperf reads configs as "
        "data and runs no code: write the value itself",
        f"{path}:13: flops: calls float(), which needs real execution: chipperf reads configs as "
        "data and runs no code: write the value itself",
    ]


def test_problems_of_an_imported_file_name_that_file():
    config = read_py_config(DATA / "nvidia" / "bert-pytorch" / "config" / "config_A100x1x8.py")
    common = DATA / "nvidia" / "bert-pytorch" / "config" / "config_Ampere_common.py"
    assert len(config.problems) == 1
    assert config.problems[0].startswith(f"{common}:6: grad_scaler: calls GradScaler()")
    assert config.public()["eval_batch_size"] == 24


def test_missing_star_import_and_circles(tmp_path):
    path = write(tmp_path, "config_ax1x1.py", "from config_common import *\nlr = 0.1\n")
    config = read_py_config(path)
    assert config.problems == [f"{path}:1: from config_common import *: no file "
                               f"{tmp_path / 'config_common.py'}: add it beside this config, "
                               "or remove the import"]
    write(tmp_path, "config_common.py", "from config_ax1x1 import *\nseed = 1\n")
    config = read_py_config(path)
    assert len(config.problems) == 1 and "imports itself" in config.problems[0]
    assert config.public() == {"seed": 1, "lr": 0.1}


@pytest.mark.parametrize("text, value", [
    ("X = -2**20", -(2**20)),
    ("X = [1, 2] + [3]", [1, 2, 3]),
    ("X = (1,) + (2,)", (1, 2)),
    ("import os\nA = '/a'\nX = os.path.join(A, 'b', 'c')", "/a/b/c"),
    ("N = 8\nX = f'{N:03d}-{N!r}'", "008-8"),
    ("X = 'a'\nX += 'b'", "ab"),
    ("X = {'a': [1, {'b': None}]}", {"a": [1, {"b": None}]}),
    ("X = Y = 3", 3),
    ('"""doc"""\nX = 1e-4', 1e-4),
])
def test_forms_flagperf_configs_use(tmp_path, text, value):
    config = read_py_config(write(tmp_path, "c.py", text + "\n"))
    assert config.problems == [] and config.public()["X"] == value


@pytest.mark.parametrize("text, says", [
    ("X = Y + 1", "X: uses Y, which is not set above this line"),
    ("X = 'a' + 1", "str + number is not read"),
    ("X = 2 ** 100000", "exponent over 1024"),
    ("X = 1 / 0", "division by zero"),
    ("X = open('/etc/passwd').read()", "calls open('/etc/passwd').read()"),
    ("import os\nX = os.getenv('HOME')", "calls os.getenv()"),
    ("X = [i for i in range(3)]", "needs real execution"),
    ("if True:\n    X = 1", "an if statement needs real execution"),
    ("from torch import *", "from torch import *: no file"),
    ("from .common import *", "only a sibling config file can be star-imported"),
    ("def f():\n    return 1\nX = f", "uses f (definition of f)"),
    ("X = dict(**{'a': 1})", "dict(**...) needs real execution"),
    ("a.b = 1", "only plain names can be assigned"),
])
def test_what_is_refused_names_file_and_line(tmp_path, text, says):
    path = write(tmp_path, "c.py", text + "\n")
    config = read_py_config(path)
    assert len(config.problems) == 1, config.problems
    assert config.problems[0].startswith(f"{path}:") and says in config.problems[0]


def test_a_bad_value_is_reported_once_not_again_where_it_is_used(tmp_path):
    config = read_py_config(write(tmp_path, "c.py", "A = f()\nB = A + 1\nC = [A]\nD = 2\n"))
    assert len(config.problems) == 1 and config.public() == {"D": 2}


def test_every_problem_of_both_files_at_once_syntax_error_included(tmp_path):
    cluster = write(tmp_path, "cluster_conf.py", 'HOSTS = ["a",\nSSH_PORT = "22"\n')
    test = write(tmp_path, "test_conf.py",
                 'VENDOR = "nvidia"\nLOG = PATH + "/result/"\nCASES = {"a:b:c:1:1": "/d"}\n')
    _, cluster_problems = parse_cluster(cluster)
    _, test_problems = parse_test(test)
    problems = cluster_problems + test_problems
    assert len(problems) == 3, problems
    assert problems[0].startswith(f"{cluster}:1: Python syntax error")  # and no "HOSTS not set"
    assert problems[1].startswith(f"{test}:2: LOG: uses PATH")
    assert "has 5 ':'-separated parts" in problems[2]


def test_a_value_that_could_not_be_read_is_not_also_reported_missing(tmp_path):
    with pytest.raises(ConfigError) as err:
        load_cluster(write(tmp_path, "c.py", "import socket\nHOSTS = [socket.gethostname()]\n"))
    assert len(err.value.problems) == 1 and "calls socket.gethostname()" in str(err.value)
