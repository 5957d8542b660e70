"""textlm, the text cases' shared framework-free code: BERT's numbers and config checks, the
shared bert defaults, prepare_data's text and shards, and the training schedule (run against a
real Driver writing PerfLog lines). The shard readers: test_textlm_shards.py."""

from __future__ import annotations

import ast
import io
import math
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pytest
from casemodules import BENCHMARKS

from chipperf_runtime.perflog import parse_lines
from chipperf_runtime.training.driver import ConfigError, Driver, load_case_config, load_config
from chipperf_runtime.training.textlm import bert, corpus, loop

# ---------------------------------------------------------------- bert numbers and config


def test_flops_formula_for_bert_large() -> None:
    large = bert.PRESETS["large"]
    n = bert.matmul_params(large)
    assert n == 24 * (4 * 1024**2 + 2 * 1024 * 4096) + 1024**2 + 1024 * 30522
    assert bert.train_flops_per_sequence(large, 512) == \
        6 * n * 512 + 12 * 24 * 1024 * 512**2 == 1_104_257_482_752


def test_parameter_formula_adds_up_to_hugging_faces_count() -> None:
    h, i, v, layers = 1024, 4096, 30522, 24
    embeddings = v * h + 512 * h + 2 * h + 2 * h
    per_layer = 4 * (h * h + h) + (h * i + i) + (i * h + h) + 4 * h
    mlm_head = h * h + h + 2 * h + v
    assert bert.parameter_count(bert.PRESETS["large"]) == \
        embeddings + layers * per_layer + mlm_head == 335_174_458


def test_presets_are_consistent() -> None:
    assert bert.PRESETS["large"] == bert.BertConfig()
    assert all(cfg.problems() == [] for cfg in bert.PRESETS.values())
    assert "hidden_size 10 is not a multiple of num_heads 3" in \
        bert.BertConfig(hidden_size=10, num_heads=3).problems()


def bert_config(**values):
    base = {"model_size": "tiny", "target_mlm_accuracy": {"tiny": 0.1}, "dtype": "fp32",
            "global_batch_size": 8, "max_steps": 10, "eval_every_steps": 5}
    return load_config(base, set(), overrides=values)


def test_model_config_reports_every_problem_at_once() -> None:
    assert bert.model_config(bert_config(), ("fp32",)) == bert.PRESETS["tiny"]
    with pytest.raises(ConfigError) as error:
        bert.model_config(bert_config(model_size="huge", dtype="fp8", max_steps=0), ("fp32",))
    assert str(error.value).splitlines() == [
        "configuration problems:",
        "  - model_size 'huge' is unknown: use one of large, tiny",
        "  - dtype 'fp8' is not supported: use one of fp32",
        "  - max_steps = 0 must be at least 1"]
    with pytest.raises(ConfigError, match="target_mlm_accuracy has no target for model_size"):
        bert.model_config(bert_config(model_size="large"), ("fp32",))


def test_both_bert_cases_share_every_parameter_but_their_numerics() -> None:
    pytorch = load_case_config(BENCHMARKS / "bert" / "pytorch" / "config", None)
    paddle = load_case_config(BENCHMARKS / "bert" / "paddle" / "config", None)
    # bert/pytorch runs on hftext, whose schedule has two more knobs (set to bert_base's linear
    # decay to 0) and whose Gaudi path has two HPU-graph knobs (off, GaudiTrainer's defaults);
    # cpu_threads means the same in both, with each framework's "not set" value
    assert set(pytorch) - set(paddle) == {"min_lr_ratio", "lr_decay", "hpu_graphs_for_training",
                                          "hpu_graphs_for_inference"}
    assert set(paddle) <= set(pytorch)
    assert not pytorch.hpu_graphs_for_training and not pytorch.hpu_graphs_for_inference
    assert {k: v for k, v in paddle.items() if k != "cpu_threads"} == \
        {k: pytorch[k] for k in paddle if k != "cpu_threads"}
    assert (pytorch.min_lr_ratio, pytorch.lr_decay, pytorch.cpu_threads) == (0.0, "linear", None)
    assert (pytorch.model_size, pytorch.target_mlm_accuracy["large"], pytorch.dtype) == \
        ("large", 0.72, "fp32")
    assert list(pytorch)[-3:] == ["dtype", "cpu_threads", "seed"]   # the shared names first


# ---------------------------------------------------------------- corpus (prepare_data)


def test_file_documents_read_each_text_file_once(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("alpha")
    (tmp_path / "b.md").write_text("beta")
    (tmp_path / "c.png").write_bytes(b"\x89PNG")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "link.txt").symlink_to(tmp_path / "a.txt")
    names = [Path(n).name for n, _ in corpus.file_documents([tmp_path, tmp_path / "a.txt"])]
    assert names == ["a.txt", "b.md"]


def test_docstring_documents_skip_tests_and_installed_packages(tmp_path: Path) -> None:
    (tmp_path / "json").mkdir()
    (tmp_path / "json" / "enc.py").write_text(
        '"""Encoder."""\nclass A:\n    """Class doc."""\n    def f(self):\n        """F."""\n')
    (tmp_path / "plain.py").write_text("x = 1\n")                     # no docstring
    (tmp_path / "broken.py").write_text("def (:\n")                    # not Python
    for skipped in ("test", "site-packages"):
        (tmp_path / skipped).mkdir()
        (tmp_path / skipped / "m.py").write_text('"""Skipped."""\n')
    assert list(corpus.docstring_documents(tmp_path)) == \
        [("stdlib:json/enc.py", "Encoder.\n\nClass doc.\n\nF.")]


def test_eval_hold_out_is_a_stable_fraction_by_name() -> None:
    names = [f"doc{i}" for i in range(2000)]
    held = [n for n in names if corpus.is_eval(n, 10)]
    assert held == [n for n in names if corpus.is_eval(n, 10)]
    assert 150 < len(held) < 250


def test_shards_and_meta_are_written(tmp_path: Path) -> None:
    names = corpus.write_shards(tmp_path / "train", np.arange(10, dtype=np.uint16), 4)
    assert names == ["shard_00000.npy", "shard_00001.npy", "shard_00002.npy"]
    assert np.load(tmp_path / "train" / "shard_00002.npy").tolist() == [8, 9]
    assert corpus.write_shards(tmp_path / "eval", np.zeros((0, 4), np.uint16), 4) == []
    corpus.write_meta(tmp_path, {"sources": corpus.sources([("d", "text")])})
    text = (tmp_path / "meta.json").read_text()
    sha256_of_text = "982d9e3eb996f559e633f4d194def3761d909f5a3b647d1a851fead67c32c9d1"
    assert '"chars": 4' in text and sha256_of_text in text


def test_prepare_parser_takes_the_shared_arguments(tmp_path: Path) -> None:
    p = corpus.parser("x")
    args = p.parse_args(["--output", str(tmp_path), "--source", str(tmp_path)])
    assert (args.output, args.source, args.eval_every) == (tmp_path, [tmp_path], 10)
    with pytest.raises(SystemExit):
        corpus.documents(p, args)          # an empty folder holds no documents


# ---------------------------------------------------------------- loop (the schedule)


@dataclass
class CountingTrainer:
    """A framework-free trainer: ``accumulate`` micro-batches make an optimizer step, each
    micro-batch is 4 samples, and the metric is optimizer steps / 10."""

    per_epoch: int
    accumulate: int = 1
    steps: int = 0
    micro: int = 0
    evaluated_at: list[int] = field(default_factory=list)

    def batches(self, epoch: int) -> range:
        return range(self.per_epoch)

    def step(self, batch: int) -> tuple[float, bool]:
        self.micro += 1
        stepped = self.micro % self.accumulate == 0
        self.steps += stepped
        return 1.0 / self.micro, stepped

    def work(self, batch: int) -> int:
        return 4

    def lr(self) -> float:
        return 0.5

    def evaluate(self) -> float:
        self.evaluated_at.append(self.steps)
        return self.steps / 10


def driver_for(tmp_path: Path, out: io.StringIO) -> Driver:
    config = tmp_path / "case" / "config"
    config.mkdir(parents=True)
    (config / "_base.py").write_text("global_batch_size = 8\nlog_every_steps = 2\n")
    (config / "mutable_params.py").write_text("mutable_params = []\n")
    return Driver.start("m", tmp_path / "case", ["--data_dir", str(tmp_path)], environ={},
                        stream=out)


def events(out: io.StringIO) -> list:
    parsed, problems = parse_lines(out.getvalue().splitlines())
    assert problems == []
    return parsed


def test_run_stops_at_the_evaluation_that_reaches_the_goal(tmp_path: Path) -> None:
    out = io.StringIO()
    trainer = CountingTrainer(per_epoch=3)
    progress = loop.run(driver_for(tmp_path, out), trainer,
                        loop.Schedule(loop.Goal("acc", 0.5), max_steps=100, eval_every=2))
    assert (progress.epoch, progress.step, progress.work, progress.value) == (2, 6, 24, 0.6)
    assert trainer.evaluated_at == [2, 4, 6]
    seen = events(out)
    evaluations = [e.value for e in seen if e.name == "EVALUATE"]
    assert [(e["step"], e["value"], e["reached"]) for e in evaluations] == \
        [(2, 0.2, False), (4, 0.4, False), (6, 0.6, True)]
    assert [e.value["step"] for e in seen if e.name == "STEP_END"] == [2, 4, 6]
    assert [e.value for e in seen if e.name == "TRAIN_END"] == [{"epochs": 2, "steps": 6}]
    assert [e.value for e in seen if e.name == "TRAIN_START"] == [{
        "global_batch_size": 8,
        "run_mode": {"mode": "convergence", "warmup_steps": 0, "timed_steps": 0}}]
    assert [e.value for e in seen if e.name == "EPOCH_END"] == \
        [{"epoch": 1, "step": 3}, {"epoch": 2, "step": 6}]


def test_run_ends_at_max_steps_with_a_last_evaluation(tmp_path: Path) -> None:
    out = io.StringIO()
    goal = loop.Goal("eval_loss", 0.0, higher_is_better=False,
                     details=lambda loss: {"perplexity": math.exp(loss)})
    trainer = CountingTrainer(per_epoch=4, accumulate=2)
    progress = loop.run(driver_for(tmp_path, out), trainer,
                        loop.Schedule(goal, max_steps=3, eval_every=2))
    assert (progress.step, progress.work, trainer.micro) == (3, 24, 6)   # 2 micro per step
    assert trainer.evaluated_at == [2, 3]
    last = [e.value for e in events(out) if e.name == "EVALUATE"][-1]
    assert (last["step"], last["reached"], last["higher_is_better"]) == (3, False, False)
    assert last["perplexity"] == pytest.approx(math.exp(0.3))
    assert goal.metric(progress.value).reached() is False


def test_learning_rate_factors() -> None:
    linear = loop.linear_warmup_decay(10, 110)
    assert [linear(s) for s in (0, 4, 9, 10, 60, 110, 200)] == \
        [0.1, 0.5, 1.0, 1.0, 0.5, 0.0, 0.0]
    cosine = loop.warmup_cosine(10, 110, 0.1)
    assert [cosine(s) for s in (0, 9, 10)] == [0.1, 1.0, 1.0]
    assert cosine(60) == pytest.approx(0.55) and cosine(110) == cosine(500) == pytest.approx(0.1)


SOURCE_WITH_NESTED_DOCSTRINGS = '''
"""module"""
if True:
    def in_if():
        """in if"""
        class Inner:
            """inner"""
try:
    pass
except ValueError:
    async def in_handler():
        """in handler"""
match 1:
    case 1:
        class InCase:
            """in case"""
def top(x=lambda: None):
    """top"""
    with open(x) as f:
        def in_with():
            """in with"""
'''


def test_docstring_owners_are_found_in_ast_walk_s_order() -> None:
    """corpus.statements skips expressions: the same owners, in the same (breadth-first)
    order, so the corpus' text is unchanged."""
    tree = ast.parse(SOURCE_WITH_NESTED_DOCSTRINGS)
    owners = (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)
    walked = [ast.get_docstring(n) for n in ast.walk(tree) if isinstance(n, owners)]
    assert [ast.get_docstring(n) for n in corpus.statements(tree) if isinstance(n, owners)] == walked
    assert len(walked) == 7 and walked[:3] == ["module", "top", "in if"]  # breadth first
