"""The shared training-case driver: config layering, mutable params, windows, FINISHED."""

from __future__ import annotations

import io
import shutil
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path[:0] = [p for p in (str(REPO), str(REPO / "training" / "benchmarks")) if p not in sys.path]

from chipperf_runtime.perflog import finished_problems, parse_lines  # noqa: E402
from chipperf_runtime.training.driver import (  # noqa: E402
    CaseError,
    ConfigError,
    DataError,
    DistEnv,
    Driver,
    LaunchError,
    Metric,
    Windows,
    WindowTimes,
    build_finished,
    load_case_config,
    parse_args,
    parse_overrides,
    require_same_classes,
    scan_image_folder,
    split_batch,
)
from chipperf_runtime.training.driver.netif import interface_towards  # noqa: E402

BASE = """
lr = 0.1
global_batch_size = 64
dtype = "fp32"
layers = [3, 4]
target = 0.9
note = None
_private = 1
import os
def helper():
    return 1
"""


class FakeClock:
    def __init__(self, start: float = 100.0):
        self.t = start

    def __call__(self) -> float:
        return self.t

    def advance(self, seconds: float) -> None:
        self.t += seconds


@pytest.fixture()
def case(tmp_path: Path) -> Path:
    (tmp_path / "case" / "config").mkdir(parents=True)
    (tmp_path / "case" / "config" / "_base.py").write_text(BASE)
    (tmp_path / "case" / "config" / "mutable_params.py").write_text(
        'mutable_params = ["lr", "global_batch_size", "layers", "note"]\n')
    (tmp_path / "vendor").mkdir()
    return tmp_path


def vendor_file(case: Path, text: str, name: str = "config_x1x1x1.py") -> Path:
    path = case / "vendor" / name
    path.write_text(text)
    return path


# ---------------------------------------------------------------- layering


def test_layers_apply_in_order_and_record_their_source(case: Path) -> None:
    vendor = vendor_file(case, "lr = 0.2\nglobal_batch_size = 128\n")
    cfg = load_case_config(case / "case" / "config", vendor, {"global_batch_size": 256})
    assert (cfg.lr, cfg.global_batch_size, cfg.dtype) == (0.2, 256, "fp32")
    assert [cfg.source(n) for n in ("lr", "global_batch_size", "dtype")] == \
        ["vendor", "override", "base"]


def test_private_names_modules_and_functions_are_not_parameters(case: Path) -> None:
    cfg = load_case_config(case / "case" / "config", None)
    assert set(cfg) == {"lr", "global_batch_size", "dtype", "layers", "target", "note"}


def test_config_is_read_only(case: Path) -> None:
    cfg = load_case_config(case / "case" / "config", None)
    with pytest.raises(AttributeError, match="read-only"):
        cfg.lr = 1.0
    assert cfg.layers == (3, 4)
    with pytest.raises(AttributeError):
        cfg.layers.append(5)  # type: ignore[attr-defined]
    assert cfg.as_dict()["layers"] == [3, 4]


def test_vendor_config_may_import_a_sibling(case: Path) -> None:
    vendor_file(case, "lr = 0.3\n", name="config_common_x.py")
    vendor = vendor_file(case, "from config_common_x import *\nglobal_batch_size = 32\n")
    cfg = load_case_config(case / "case" / "config", vendor)
    assert (cfg.lr, cfg.global_batch_size) == (0.3, 32)


def test_same_named_siblings_in_two_vendor_folders_are_read_separately(case: Path) -> None:
    for folder, lr in (("v1", 0.5), ("v2", 0.7)):
        (case / folder).mkdir()
        (case / folder / "config_shared.py").write_text(f"lr = {lr}\n")
        (case / folder / "config_a.py").write_text("from config_shared import *\n")
    first = load_case_config(case / "case" / "config", case / "v1" / "config_a.py")
    second = load_case_config(case / "case" / "config", case / "v2" / "config_a.py")
    assert (first.lr, second.lr) == (0.5, 0.7)


def test_none_default_takes_any_kind(case: Path) -> None:
    cfg = load_case_config(case / "case" / "config", vendor_file(case, "note = 'hi'\n"))
    assert cfg.note == "hi"


# ---------------------------------------------------------------- mutable params and errors


def test_vendor_setting_a_non_mutable_param_names_file_param_and_allowed(case: Path) -> None:
    vendor = vendor_file(case, "lr = 0.2\ndtype = 'bf16'\n")
    with pytest.raises(ConfigError) as err:
        load_case_config(case / "case" / "config", vendor)
    text = str(err.value)
    assert str(vendor) in text and "'dtype'" in text
    assert "allowed: global_batch_size, layers, lr, note" in text


def test_every_problem_is_reported_at_once(case: Path) -> None:
    vendor = vendor_file(case, "dtype = 'bf16'\ntarget = 0.5\nlr = 'fast'\n")
    with pytest.raises(ConfigError) as err:
        load_case_config(case / "case" / "config", vendor, {"nope": 1})
    text = str(err.value)
    assert "'dtype'" in text and "'target'" in text and "lr = 'fast'" in text
    assert "unknown parameter 'nope'" in text


def test_unknown_override_is_an_error(case: Path) -> None:
    with pytest.raises(ConfigError, match="unknown parameter 'lrr'"):
        load_case_config(case / "case" / "config", None, {"lrr": 0.1})


def test_override_may_change_a_non_mutable_param(case: Path) -> None:
    cfg = load_case_config(case / "case" / "config", None, {"dtype": "bf16"})
    assert cfg.dtype == "bf16"


def test_mutable_list_must_name_base_params(case: Path) -> None:
    (case / "case" / "config" / "mutable_params.py").write_text("mutable_params = ['lr', 'x']\n")
    with pytest.raises(ConfigError, match="lists 'x'"):
        load_case_config(case / "case" / "config", None)


def test_broken_vendor_file_is_a_config_error(case: Path) -> None:
    vendor = vendor_file(case, "lr = (\n")
    with pytest.raises(ConfigError, match="cannot be read: SyntaxError"):
        load_case_config(case / "case" / "config", vendor)
    with pytest.raises(ConfigError, match="does not exist"):
        load_case_config(case / "case" / "config", case / "vendor" / "missing.py")


def test_overrides_parse_as_literals_or_plain_strings() -> None:
    assert parse_overrides(["lr=0.5", "dtype=bf16", "s='x'", "l=[1, 2]", "n=None"]) == \
        {"lr": 0.5, "dtype": "bf16", "s": "x", "l": [1, 2], "n": None}
    with pytest.raises(ConfigError, match="NAME=VALUE"):
        parse_overrides(["lr"])


def test_launch_contract_arguments() -> None:
    args = parse_args(["--data_dir", "/d", "--extern_config_dir", "/c", "--extern_config_file",
                       "config_xeonx1x2.py", "--output_dir", "/o", "--set", "lr=1"])
    assert args.vendor_config == Path("/c/config_xeonx1x2.py")
    assert args.overrides == {"lr": 1}
    with pytest.raises(LaunchError, match="--data_dir"):
        parse_args(["--output_dir", "/o"])


# ---------------------------------------------------------------- distributed facts


def test_dist_env_from_torchrun_and_contract_variables() -> None:
    env = {"RANK": "3", "LOCAL_RANK": "1", "WORLD_SIZE": "4", "LOCAL_WORLD_SIZE": "2",
           "GROUP_RANK": "1", "MASTER_ADDR": "10.0.0.1", "MASTER_PORT": "29501"}
    dist = DistEnv.from_env(env)
    assert (dist.rank, dist.local_rank, dist.world_size, dist.node_rank, dist.nnodes,
            dist.nproc_per_node, dist.master_port) == (3, 1, 4, 1, 2, 2, 29501)
    assert not dist.is_main and dist.distributed
    assert DistEnv.from_env({}) == DistEnv()


def test_dist_env_rejects_bad_values() -> None:
    with pytest.raises(LaunchError, match="RANK='x'"):
        DistEnv.from_env({"RANK": "x"})
    with pytest.raises(LaunchError, match="outside WORLD_SIZE"):
        DistEnv.from_env({"RANK": "2", "WORLD_SIZE": "2"})


def test_batch_must_divide_across_ranks() -> None:
    assert split_batch(64, 4) == 16
    with pytest.raises(ConfigError, match="64 does not divide across 3 ranks"):
        split_batch(64, 3)


# ---------------------------------------------------------------- windows


def test_window_arithmetic_with_a_fake_clock() -> None:
    clock, syncs = FakeClock(), []
    w = Windows(clock, process_start=90.0, sync=lambda: syncs.append(1))
    with w.evaluating():          # before train: not subtracted from no_eval
        clock.advance(5)
    w.train_start()
    clock.advance(1)              # data loading: train only
    with w.computing():
        clock.advance(3)
    with w.evaluating():
        clock.advance(2)
    with w.computing():
        clock.advance(4)
    w.train_end()
    clock.advance(0.5)
    t = w.times()
    assert t == WindowTimes(e2e_s=25.5, train_s=10.0, no_eval_s=8.0, compute_s=7.0, eval_s=2.0)
    assert len(syncs) == 2 * 4 + 2 + 1  # every region edge, train start/end, the final reading


def test_times_need_a_closed_train_window() -> None:
    w = Windows(FakeClock(), process_start=0.0)
    with pytest.raises(CaseError, match="not closed"):
        w.times()
    with pytest.raises(CaseError, match="before train_start"):
        w.train_end()


def test_process_start_defaults_to_this_process_start() -> None:
    """Read from /proc: a child that slept 0.6 s after it started reports at least that
    (a failed read gives 0 s, i.e. 'now'). psutil's create_time is no reference: it adds
    the boot time, which /proc/stat gives in whole seconds."""
    import subprocess
    import time

    code = ("import time; time.sleep(0.6); "
            "from chipperf_runtime.timing import seconds_since_process_start as s; "
            "print(s())")
    started = time.monotonic()
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         cwd=REPO).stdout
    lived = time.monotonic() - started
    assert 0.6 <= float(out) <= lived + 0.05, (out, lived)
    from chipperf_runtime.timing import seconds_since_process_start

    w = Windows()
    assert time.perf_counter() - w.process_start == pytest.approx(
        seconds_since_process_start(), abs=0.1)


# ---------------------------------------------------------------- FINISHED


TIMES = WindowTimes(e2e_s=20.0, train_s=10.0, no_eval_s=8.0, compute_s=5.0, eval_s=2.0)


def finished(**kw):
    args = dict(work_done=1000, work_unit="samples", metric=Metric("top1", 0.95, 0.9),
                flops_per_unit=3e9, dtype="fp32", world_size=2, peak_memory_bytes=None)
    args.update(kw)
    return build_finished(TIMES, **args)


def test_finished_matches_the_schema_exactly() -> None:
    from chipperf_runtime.perflog import FINISHED_KEYS
    value = finished()
    assert finished_problems(value) == []
    assert set(value) == set(FINISHED_KEYS)
    assert value["throughput"] == {"raw": 100.0, "no_eval": 125.0, "pure_compute": 200.0,
                                   "unit": "samples/s"}
    assert value["converged"] is True and value["metric"]["value"] == 0.95
    assert finished_problems(finished(peak_memory_bytes=123, work_unit="tokens")) == []


def test_converged_follows_the_metric() -> None:
    assert finished(metric=Metric("top1", 0.85, 0.9))["converged"] is False
    assert finished(metric=Metric("loss", 1.5, 2.0, higher_is_better=False))["converged"] is True
    assert finished(metric=Metric("top1", None, 0.9))["converged"] is False
    assert finished(metric=Metric("top1", float("nan"), 0.9))["converged"] is False


def test_unmeasured_window_is_an_error_not_a_number() -> None:
    times = WindowTimes(e2e_s=20.0, train_s=10.0, no_eval_s=8.0, compute_s=0.0, eval_s=2.0)
    with pytest.raises(CaseError, match="pure-compute window"):
        build_finished(times, work_done=1, work_unit="samples", metric=Metric("a", 1, 1),
                       flops_per_unit=1.0, dtype="fp32", world_size=1, peak_memory_bytes=None)
    with pytest.raises(CaseError, match="work_unit"):
        finished(work_unit="images")


# ---------------------------------------------------------------- the Driver end to end


def start(case: Path, env: dict, clock: FakeClock, out: io.StringIO, *extra: str) -> Driver:
    vendor = vendor_file(case, "lr = 0.2\n")
    argv = ["--data_dir", str(case), "--extern_config_dir", str(vendor.parent),
            "--extern_config_file", vendor.name, "--output_dir", str(case / "out"), *extra]
    return Driver.start("m", case / "case", argv, environ=env, clock=clock, stream=out)


def test_driver_emits_the_lifecycle_and_a_valid_finished(case: Path) -> None:
    clock, out = FakeClock(), io.StringIO()
    d = start(case, {"RANK": "0", "WORLD_SIZE": "2", "CHIPPERF_VENDOR": "cpu"}, clock, out)
    d.init_end()
    d.train_start()
    d.epoch_begin(1)
    for step in range(1, 21):
        with d.compute():
            clock.advance(0.5)
        d.step_end(step, loss=1.0)
    with d.evaluation():
        clock.advance(1)
    d.evaluate(1, Metric("top1", 0.95, 0.9))
    d.epoch_end(1)
    d.train_end()
    d.finish(work_done=640, work_unit="samples", metric=Metric("top1", 0.95, 0.9),
             flops_per_unit=1.0, dtype="fp32", peak_memory_bytes=None)
    events, problems = parse_lines(out.getvalue().splitlines())
    assert problems == []
    names = [e.name for e in events]
    assert names == ["INIT_START", "SUBMIT_INFO", "INIT_END", "TRAIN_START", "EPOCH_BEGIN",
                     "STEP_END", "STEP_END", "EVALUATE", "EPOCH_END", "TRAIN_END", "FINISHED"]
    submit = events[1].value
    assert submit["vendor"] == "cpu" and submit["config"]["lr"] == 0.2
    assert submit["config_sources"]["lr"] == "vendor"
    assert submit["flagperf_aliases"] == {}        # a translated config lists its mapping
    assert submit["workload"] == {"global_batch": 64, "seq_len": None, "image_size": None,
                                  "precision": "fp32"}   # typed, from the resolved config
    fin = events[-1].value
    assert finished_problems(fin) == []
    assert fin["train_time_s"] == 11.0 and fin["pure_compute_time_s"] == 10.0
    assert fin["world_size"] == 2 and fin["throughput"]["pure_compute"] == 64.0


def test_submit_info_carries_the_data_dirs_dataset_card(case: Path) -> None:
    out = io.StringIO()
    start(case, {}, FakeClock(), out)
    (case / "dataset.json").write_text('{"name": "digits", "smoke_test": "tiny images"}')
    start(case, {}, FakeClock(), out)
    cards = [e.value["dataset"] for e in parse_lines(out.getvalue().splitlines())[0]
             if e.name == "SUBMIT_INFO"]
    assert cards == [None, {"name": "digits", "smoke_test": "tiny images"}]


def test_submit_info_carries_the_implementation_note_of_a_flagperf_megatron_key(case: Path) -> None:
    from chipperf_runtime.training.driver.config import IMPLEMENTATION_ENV

    out = io.StringIO()
    start(case, {}, FakeClock(), out)
    start(case, {IMPLEMENTATION_ENV: "llama3_8B:megatron:A100:1:8:1: not comparable"}, FakeClock(), out)
    notes = [e.value.get("implementation") for e in parse_lines(out.getvalue().splitlines())[0]
             if e.name == "SUBMIT_INFO"]
    assert notes == [None, "llama3_8B:megatron:A100:1:8:1: not comparable"]


def test_other_ranks_stay_quiet(case: Path) -> None:
    out = io.StringIO()
    d = start(case, {"RANK": "1", "WORLD_SIZE": "2"}, FakeClock(), out)
    d.init_end()
    assert out.getvalue() == ""


def test_driver_fails_before_training_on_a_bad_vendor_config(case: Path) -> None:
    vendor_file(case, "dtype = 'bf16'\n", name="config_bad.py")
    out = io.StringIO()
    argv = ["--data_dir", str(case), "--extern_config_dir", str(case / "vendor"),
            "--extern_config_file", "config_bad.py"]
    with pytest.raises(ConfigError, match="config_bad.py: sets 'dtype'"):
        Driver.start("m", case / "case", argv, environ={}, stream=out)
    assert [e.name for e in parse_lines(out.getvalue().splitlines())[0]] == ["INIT_START"]


def test_step_end_frequency_comes_from_log_every_steps(case: Path) -> None:
    (case / "case" / "config" / "_base.py").write_text(BASE + "log_every_steps = 3\n")
    out = io.StringIO()
    d = start(case, {}, FakeClock(), out)
    for step in range(1, 10):
        d.step_end(step)
    steps = [e.value["step"] for e in parse_lines(out.getvalue().splitlines())[0]
             if e.name == "STEP_END"]
    assert steps == [3, 6, 9]


def test_step_end_with_work_carries_the_pace_so_far_for_the_console(case: Path) -> None:
    clock, out = FakeClock(), io.StringIO()
    d = start(case, {"RANK": "0", "WORLD_SIZE": "2"}, clock, out)
    d.step_end(10, work=320, loss=2.0)            # before train_start: no pace to tell
    d.train_start()
    clock.advance(4.0)
    d.step_end(20, work=640, loss=1.5)            # 640 samples on this rank x 2 ranks / 4 s
    steps = [e.value for e in parse_lines(out.getvalue().splitlines())[0] if e.name == "STEP_END"]
    assert steps == [{"step": 10, "loss": 2.0},
                     {"step": 20, "loss": 1.5, "throughput_so_far": 320.0, "work_so_far": 1280,
                      "train_elapsed_s": 4.0, "warmup_steps": 0}]


# ---------------------------------------------------------------- data dir and network


def test_missing_data_dir_names_path_and_layout(tmp_path: Path) -> None:
    with pytest.raises(DataError) as err:
        scan_image_folder(tmp_path / "nope", "train")
    assert str(tmp_path / "nope") in str(err.value) and "<data_dir>/train/<class name>" in str(
        err.value)


def test_malformed_data_dirs(tmp_path: Path) -> None:
    (tmp_path / "train").mkdir()
    with pytest.raises(DataError, match="no class folders"):
        scan_image_folder(tmp_path, "train")
    (tmp_path / "train" / "cat").mkdir()
    (tmp_path / "train" / "cat" / "notes.txt").write_text("x")
    with pytest.raises(DataError, match="cat hold no images"):
        scan_image_folder(tmp_path, "train")
    (tmp_path / "train" / "cat" / "a.JPEG").write_bytes(b"")
    assert list(scan_image_folder(tmp_path, "train")) == ["cat"]
    with pytest.raises(DataError, match="class folders differ"):
        require_same_classes(["cat"], ["dog"], tmp_path)


def test_interface_towards_loopback() -> None:
    assert interface_towards("127.0.0.1") == "lo"


@pytest.mark.parametrize("configured, omp, nproc, expected", [
    (3, "1", 2, 3),            # the case's cpu_threads wins
    (None, "1", 2, 1),         # then OMP_NUM_THREADS (torchrun sets 1 for nproc > 1)
    (None, "", 1, "cores"),    # then the usable cores shared among the node's ranks
    (None, "x", 10**6, 1),     # never below 1
])
def test_rank_threads(configured, omp, nproc, expected) -> None:
    from chipperf_runtime.device import usable_cores
    from chipperf_runtime.training.driver.dist import rank_threads

    dist = DistEnv(world_size=nproc, nproc_per_node=nproc)
    got = rank_threads(dist, configured, environ={"OMP_NUM_THREADS": omp})
    assert got == (max(1, usable_cores() // nproc) if expected == "cores" else expected)


def test_driver_package_imports_no_framework() -> None:
    """`import driver` must work in a TensorFlow or Paddle image: torchdist stays out of it."""
    import subprocess

    code = ("import sys, chipperf_runtime.training.driver, chipperf_runtime.training.driver.dist, "
            "chipperf_runtime.training.driver.netif; "
            "print(sorted(m for m in ('torch', 'tensorflow', 'paddle') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env={"PYTHONPATH": str(REPO)}).stdout
    assert out.strip() == "[]"


def test_submit_info_carries_a_digest_of_the_case_code(case: Path) -> None:
    from chipperf_runtime.codeversion import code_digest

    out = io.StringIO()
    start(case, {"RANK": "0", "WORLD_SIZE": "1"}, FakeClock(), out)
    events, _ = parse_lines(out.getvalue().splitlines())
    digest = events[1].value["case_version"]
    assert digest.startswith("sha256:") and digest == code_digest(case / "case")
    (case / "case" / "model.py").write_text("LAYERS = 50\n")
    changed = code_digest(case / "case")
    assert changed != digest and changed == code_digest(case / "case")
    resnet = REPO / "training" / "benchmarks" / "resnet50" / "pytorch"
    assert code_digest(resnet) == code_digest(resnet)


def test_submit_info_reports_the_flagperf_names_a_translated_config_mapped(case: Path) -> None:
    vendor = vendor_file(case, "lr = 0.2\n_flagperf_aliases = {'learning_rate': 'lr'}\n"
                               "_flagperf_no_effect = {'dist_backend': 'why'}\n"
                               "_flagperf_derived = {'lr': 'how'}\n")
    argv = ["--data_dir", str(case), "--extern_config_dir", str(vendor.parent),
            "--extern_config_file", vendor.name, "--output_dir", str(case / "out")]
    out = io.StringIO()
    Driver.start("m", case / "case", argv, environ={"RANK": "0"}, clock=FakeClock(), stream=out)
    events, _ = parse_lines(out.getvalue().splitlines())
    submit = events[1].value
    assert submit["flagperf_aliases"] == {"learning_rate": "lr"}
    assert submit["flagperf_no_effect"] == {"dist_backend": "why"}
    assert submit["flagperf_derived"] == {"lr": "how"}
    assert submit["config"]["lr"] == 0.2 and "_flagperf_aliases" not in submit["config"]


def test_the_digest_covers_the_runtime_s_suite_code_a_case_imports(tmp_path: Path) -> None:
    """The training driver (chipperf_runtime.training) is workload code: editing it changes a
    case's digest; the harness (device layer) is not."""
    from chipperf_runtime.codeversion import code_digest

    package = tmp_path / "code" / "chipperf_runtime"
    (package / "training" / "lib").mkdir(parents=True)
    (package / "training" / "lib" / "__init__.py").write_text("X = 1\n")
    (package / "device").mkdir(parents=True)
    (package / "device" / "__init__.py").write_text("D = 1\n")
    case = tmp_path / "code" / "benchmarks" / "m" / "pytorch"
    case.mkdir(parents=True)
    (case / "run.py").write_text("from chipperf_runtime.training.lib import X\n"
                                 "from chipperf_runtime.device import D\n")
    first = code_digest(case, package=package)
    (package / "device" / "__init__.py").write_text("D = 2\n")
    assert code_digest(case, package=package) == first
    (package / "training" / "lib" / "__init__.py").write_text("X = 2\n")
    assert code_digest(case, package=package) != first


def test_the_digest_covers_the_chipperf_models_a_case_imports_not_the_harness(
        tmp_path: Path) -> None:
    """The resnet50 cases' model lives in chipperf_runtime/models (shared by training and inference):
    editing it changes their digest; editing chipperf's PerfLog writer does not."""
    from chipperf_runtime.codeversion import code_digest

    package = tmp_path / "code" / "chipperf_runtime"
    (package / "models").mkdir(parents=True)
    (package / "models" / "resnet.py").write_text("LAYERS = (3, 4, 6, 3)\n")
    (package / "models" / "other.py").write_text("X = 1\n")
    (package / "perflog.py").write_text("V = 1\n")
    case = tmp_path / "code" / "benchmarks" / "m" / "pytorch"
    case.mkdir(parents=True)
    (case / "run.py").write_text("from chipperf_runtime.perflog import V\n"
                                 "from chipperf_runtime.models.resnet import LAYERS\n")
    first = code_digest(case, package=package)
    (package / "perflog.py").write_text("V = 2\n")
    (package / "models" / "other.py").write_text("X = 2\n")
    assert code_digest(case, package=package) == first
    (package / "models" / "resnet.py").write_text("LAYERS = (3, 4, 23, 3)\n")
    assert code_digest(case, package=package) != first


def test_the_digest_covers_what_an_imported_chipperf_model_imports(tmp_path: Path) -> None:
    """A model module that imports another workload module (a model built through tvision.py): editing
    the second changes the case's digest too; a cycle between them ends."""
    from chipperf_runtime.codeversion import code_digest

    package = tmp_path / "code" / "chipperf_runtime"
    (package / "models").mkdir(parents=True)
    (package / "models" / "resnet.py").write_text("from chipperf_runtime.models.helper import H\n")
    (package / "models" / "helper.py").write_text("from chipperf_runtime.models.resnet import R\nH = 1\n")
    case = tmp_path / "code" / "benchmarks" / "m" / "pytorch"
    case.mkdir(parents=True)
    (case / "run.py").write_text("from chipperf_runtime.models.resnet import R\n")
    first = code_digest(case, package=package)
    (package / "models" / "helper.py").write_text("from chipperf_runtime.models.resnet import R\nH = 2\n")
    assert code_digest(case, package=package) != first


def test_both_resnet50_cases_digest_the_shared_model(tmp_path: Path) -> None:
    from chipperf_runtime.codeversion import code_digest

    package = tmp_path / "chipperf_runtime"
    shutil.copytree(REPO / "chipperf_runtime", package,
                    ignore=shutil.ignore_patterns("__pycache__"))
    cases = [REPO / suite / "benchmarks" / "resnet50" / "pytorch"
             for suite in ("training", "inference")]
    before = [code_digest(case, package=package) for case in cases]
    with (package / "models" / "resnet.py").open("a") as model:
        model.write("# edited\n")
    after = [code_digest(case, package=package) for case in cases]
    assert before[0] != after[0] and before[1] != after[1]


def test_a_case_script_gets_a_digest_and_other_programs_none(monkeypatch) -> None:
    from chipperf_runtime.codeversion import code_digest, script_digest

    script = REPO / "inference" / "benchmarks" / "resnet50" / "pytorch" / "run_inference.py"
    monkeypatch.setattr(sys, "argv", [str(script)])
    assert script_digest() == code_digest(script.parent) != code_digest(
        REPO / "inference" / "benchmarks" / "bert_large" / "pytorch")
    monkeypatch.setattr(sys, "argv", [sys.executable])
    assert script_digest() is None
