"""Planning is pure: configs + catalogue -> ranks, names, env, commands, paths."""

from __future__ import annotations

from pathlib import Path

import pytest

from chipperf.config.model import CaseEntry, CaseKey, ClusterConfig, TestConfig
from chipperf.plan import check, make_plan
from chipperf.suites.catalogue import Catalogue


@pytest.fixture
def catalogue(tmp_path: Path) -> Catalogue:
    root = tmp_path / "training"
    for rel in ("benchmarks/resnet50/pytorch/run_pretraining.py",
                "cpu/resnet50-pytorch/config/config_xeonx1x1.py",
                "cpu/resnet50-pytorch/config/config_xeonx2x2.py",
                "cpu/docker_image/pytorch_2.13/Dockerfile"):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text("")
    return Catalogue.scan(root)


def configs(cases: dict[str, str], hosts=("10.0.0.1", "10.0.0.2", "10.0.0.3"), vendor="cpu"):
    cluster = ClusterConfig(hosts=hosts, master_port=29600, work_root="/w")
    test = TestConfig(vendor=vendor, cases=tuple(CaseEntry(CaseKey.parse(k), d)
                                                 for k, d in cases.items()))
    return cluster, test


def test_catalogue_scan(catalogue):
    assert set(catalogue.cases) == {("resnet50", "pytorch")}
    assert catalogue.vendor_configs[("cpu", "resnet50", "pytorch")] == {
        "config_xeonx1x1.py", "config_xeonx2x2.py"}
    assert ("cpu", "pytorch_2.13") in catalogue.images
    assert not hasattr(catalogue, "shared")      # shared case code is the runtime, not a case folder


def test_two_node_plan(catalogue):
    cluster, test = configs({"resnet50:pytorch_2.13:xeon:2:2:3": "/data/img"})
    assert check(cluster, test, catalogue) == []
    plan = make_plan(cluster, test, catalogue, "run20260101000000", Path("result"))
    assert plan.hosts == ("10.0.0.1", "10.0.0.2")
    (case,) = plan.cases
    assert case.image_name == "chipperf/training-cpu-pytorch_2.13"
    assert [r.number for r in case.rounds] == [1, 2, 3]
    r2 = case.rounds[1]
    assert r2.master_addr == "10.0.0.1" and r2.master_port == 29600
    n0, n1 = r2.nodes
    assert (n0.host, n0.node_rank, n1.host, n1.node_rank) == ("10.0.0.1", 0, "10.0.0.2", 1)
    assert n1.result_rel == "resnet50-pytorch_2.13-xeon-2x2/round2/10.0.0.2_noderank1"
    assert n1.work_dir == "/w/run20260101000000/10.0.0.2"
    assert n1.output_dir == f"{n1.work_dir}/results/{n1.result_rel}"
    assert n1.container == "chipperf-run20260101000000-resnet50-pytorch_2_13-xeon-2x2-r2-n1"
    assert n1.monitor == n1.container + "-monitor"
    env = n1.env
    assert (env["MASTER_ADDR"], env["NNODES"], env["NODE_RANK"], env["NPROC_PER_NODE"],
            env["WORLD_SIZE"]) == ("10.0.0.1", "2", "1", "2", "4")
    assert (env["CHIPPERF_RUN_ID"], env["CHIPPERF_ROUND"]) == ("run20260101000000", "2")
    assert env["CHIPPERF_CASE"] == "resnet50:pytorch_2.13:xeon:2:2:3"
    assert env["PYTHONPATH"] == f"{n1.work_dir}/code"
    cmd = list(n1.command)
    assert "--node_rank=1" in cmd and "--nnodes=2" in cmd and "--master_addr=10.0.0.1" in cmd
    entry = cmd.index(f"{n1.work_dir}/code/benchmarks/resnet50/pytorch/run_pretraining.py")
    assert cmd[entry + 1:] == [
        "--data_dir", "/data/img",
        "--extern_config_dir", f"{n1.work_dir}/code/vendor/resnet50-pytorch/config",
        "--extern_config_file", "config_xeonx2x2.py", "--output_dir", n1.output_dir]
    assert f"{n1.output_dir}/rank{{RANK}}.out.log" in cmd
    targets = [u.target for u in plan.uploads]
    assert targets == ["code/chipperf_runtime",             # the runtime only, never the engine
                       "code/benchmarks/resnet50/pytorch", "code/vendor/resnet50-pytorch"]


def test_names_never_collide_across_nodes_rounds_and_runs(catalogue):
    cluster, test = configs({"resnet50:pytorch_2.13:xeon:2:2:3": "/d",
                             "resnet50:pytorch_2.13:xeon:1:1:2": "/d"})
    names = set()
    for run_id in ("run1", "run2"):
        plan = make_plan(cluster, test, catalogue, run_id, Path("r"))
        for case in plan.cases:
            for rnd in case.rounds:
                for node in rnd.nodes:
                    for name in (node.container, node.monitor, node.output_dir):
                        assert name not in names
                        names.add(name)
    assert len(names) == 2 * 3 * (2 * 3 + 1 * 2)


def test_plan_is_deterministic(catalogue):
    cluster, test = configs({"resnet50:pytorch_2.13:xeon:2:2:1": "/d"})
    a = make_plan(cluster, test, catalogue, "run1", Path("r"))
    b = make_plan(cluster, test, catalogue, "run1", Path("r"))
    assert a == b


def test_check_lists_every_problem(catalogue):
    cluster, test = configs({
        "resnet50:pytorch_2.13:xeon:4:2:1": "/d",     # more nodes than hosts, no config
        "bert:pytorch_2.13:xeon:1:1:1": "relative",    # no case code, no vendor folder, rel path
        "resnet50:mxnet_1.0:xeon:1:1:1": "/d",         # no launcher, no image
    })
    problems = check(cluster, test, catalogue, where="tc.py")
    text = "\n".join(problems)
    assert "nnodes=4 but the cluster config lists 3 host(s)" in text
    assert "missing vendor config" in text and "config_xeonx4x2.py" in text
    assert "no case code" in text and "benchmarks/bert/pytorch/run_pretraining.py" in text
    assert "vendor 'cpu' has no case folder" in text
    assert "not an absolute path" in text
    assert "has no launcher 'mxnet'" in text
    assert "no image folder" in text
    assert all(p.startswith("tc.py: CASES[") for p in problems)
    assert len(problems) == 9, text


def test_a_case_chipperf_leaves_out_on_purpose_names_the_readme_saying_why(tmp_path):
    """A model folder holding only README.md (docs/adding-a-case.md): no case code, and the
    refusal points there."""
    (tmp_path / "benchmarks" / "left_out").mkdir(parents=True)
    (tmp_path / "benchmarks" / "left_out" / "README.md").write_text("why\n")
    cluster, test = configs({"left_out:pytorch_2.13:xeon:1:1:1": "/d"})
    problems = check(cluster, test, Catalogue.scan(tmp_path), where="tc.py")
    assert any("no case code" in p and "left_out/README.md says why" in p for p in problems)


def test_flagperf_s_transformer_xl_key_plans():
    """transformer_xl was refused (transformers removed TransfoXL); it is a case now."""
    from chipperf.suites.catalogue import default_training_dir

    cluster, test = configs({"transformer_xl:pytorch_1.8:A100:1:8:1": "/d"}, vendor="nvidia")
    assert check(cluster, test, Catalogue.scan(default_training_dir()), where="tc.py") == []


def test_unknown_vendor_and_bad_container_options(catalogue):
    cluster, test = configs({"resnet50:pytorch_2.13:xeon:1:1:1": "/d"}, vendor="acme")
    test = TestConfig(**{**test.__dict__, "container_opt": "--gpus all --net=bridge"})
    problems = check(cluster, test, catalogue)
    assert any("VENDOR 'acme' is unknown" in p for p in problems)
    assert any("--net=bridge" in p and "host network" in p for p in problems)
    # the unknown vendor is said once, not again as a missing case folder and image per case
    assert len(problems) == 2, problems


def test_result_root_is_checked_at_plan_time(tmp_path, monkeypatch):
    from chipperf.plan import checks as planning
    from chipperf.plan import result_root_problems

    assert result_root_problems(tmp_path / "new" / "deeper") == []   # creatable
    afile = tmp_path / "afile"
    afile.write_text("")
    assert result_root_problems(afile / "result") == [
        f"{afile} is not a directory: point RESULT_ROOT at a directory"]
    locked = tmp_path / "locked"
    locked.mkdir()
    monkeypatch.setattr(planning.os, "access", lambda path, mode: Path(path) != locked)
    assert result_root_problems(locked)[0].startswith("is not writable by this user")
    assert result_root_problems(locked / "run")[0].startswith(
        f"cannot be created: {locked} is not writable")
    monkeypatch.undo()
    monkeypatch.setattr(planning, "MIN_RESULT_ROOT_FREE", 2**62)
    assert "MiB free on its file system, less than the" in result_root_problems(tmp_path)[0]
