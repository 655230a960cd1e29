"""Import paths that students' notebooks, nbgrader's stored test cells and outside
scripts use keep working after the move (one test per promise of issue 9, point 2)."""
import importlib

import pytest

import labsupport
from labsupport.moved import MOVED

FACADE = ["MicroBatcher", "simulate", "BatchConfig", "make_policy", "POLICIES", "Bucketed",
          "poisson", "bursty", "load_trace", "replay", "ServiceModel", "Encoder",
          "load_encoder", "percentiles", "find_knee", "get_device", "summarize", "Request",
          "ClosedLoop", "Trace", "Dispatch", "Wait", "Policy", "SimResult", "QueueFull",
          "BatcherClosed", "BatchSizeMismatch"]


@pytest.mark.parametrize("name", FACADE)
def test_facade_names(name):
    assert getattr(labsupport, name) is not None


@pytest.mark.parametrize("old", sorted(MOVED))
def test_old_module_paths_import_the_same_objects(old):
    mod = importlib.import_module(f"labsupport.{old}")
    first = importlib.import_module(f"labsupport.{MOVED[old][0]}")
    public = [k for k in vars(first) if not k.startswith("_")]
    assert public, old
    for k in public:
        assert getattr(mod, k) is getattr(first, k), f"labsupport.{old}.{k}"


def test_old_paths_are_the_real_modules_where_not_split():
    import labsupport.batching.runtime as new
    import labsupport.runtime as old
    assert old is new and old.__spec__.name == "labsupport.batching.runtime"


def test_split_modules_expose_both_halves():
    from labsupport.padding import TooLong, backlog_batches, pad, waste  # noqa: F401
    from labsupport.widgets import BatchingExplorer, plot_sweep  # noqa: F401


def test_decoder_surface():
    from labsupport.decoder import Engine, ModelRunner, RequestTooLong, SchedulerConfig  # noqa
    from labsupport.decoder.metrics import summarize  # noqa: F401
    from labsupport.decoder.runner import tiny_gpt2  # noqa: F401
    from labsupport.decoder.stepsim import simulate  # noqa: F401
    assert callable(ModelRunner)


def test_every_exercise_module_and_check_imports():
    from pathlib import Path
    for p in sorted((Path(labsupport.__file__).parent / "exercises").glob("*.py")):
        mod = importlib.import_module(f"labsupport.exercises.{p.stem}")
        for name in getattr(mod, "TARGETS", {}):
            assert callable(getattr(mod, f"check_{name}")), f"{p.stem}.check_{name}"


# ---- `python -m <old path>` (0.1.0's commands) runs the new module as __main__ ----------
import os  # noqa: E402
import shutil  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
from pathlib import Path  # noqa: E402

REPO = Path(labsupport.__file__).resolve().parents[1]


def _run_m(*args, cwd=REPO, pythonpath=REPO):
    env = {**os.environ, "PYTHONPATH": str(pythonpath), "HF_HUB_OFFLINE": "1",
           "TRANSFORMERS_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false"}
    return subprocess.run([sys.executable, "-m", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("old,new", [("labsupport.bridge", "labsupport.serving.exporter"),
                                     ("labsupport.service", "labsupport.serving.app")])
def test_old_cli_modules_run_as_the_new_ones(old, new):
    a, b = _run_m(old, "--help"), _run_m(new, "--help")
    assert a.returncode == 0, a.stderr
    assert a.stdout == b.stdout and "usage:" in a.stdout


def test_old_bridge_prints_the_same_configs():
    a, b = _run_m("labsupport.bridge"), _run_m("labsupport.serving.exporter")
    assert a.returncode == 0, a.stderr
    assert a.stdout == b.stdout and "max_batch_size" in a.stdout


def test_old_corpus_command_regenerates_the_shipped_corpus(tmp_path):
    # a copy of the package, so the command writes tmp_path/data, not the repo's file
    shutil.copytree(REPO / "labsupport", tmp_path / "labsupport",
                    ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(REPO / "data", tmp_path / "data")
    (tmp_path / "data" / "encoder_corpus.jsonl").unlink()
    r = _run_m("labsupport.corpus", cwd=tmp_path, pythonpath=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "600 texts" in r.stdout
    written = (tmp_path / "data" / "encoder_corpus.jsonl").read_text()
    assert written == (REPO / "data" / "encoder_corpus.jsonl").read_text()


def test_split_old_module_says_which_new_ones_to_run():
    r = _run_m("labsupport.padding")
    assert r.returncode != 0
    assert "batching.shapes" in r.stderr and "batching.plans" in r.stderr


# ---- 0.1.0 names that moved inside a module -------------------------------------------
def test_old_service_parse_embed_returns_text_token_pairs():
    from labsupport.service import BadInput, FakeEncoder, Limits, parse_embed
    model = FakeEncoder()
    assert parse_embed(b'{"input": ["a b", "c"]}', model, Limits()) == [("a b", 4), ("c", 3)]
    with pytest.raises(BadInput, match="input"):
        parse_embed(b'{"input": []}', model, Limits())
    with pytest.raises(BadInput, match="at most 10"):
        parse_embed(b'{"input": "a long text"}', model, Limits(max_body_bytes=10))


def test_old_service_stats_parse_prometheus_reads_the_service_registry():
    from prometheus_client import CollectorRegistry, Counter, generate_latest
    from labsupport.service_stats import parse_prometheus
    r = CollectorRegistry()
    c = Counter("lab_requests", "by outcome", ["outcome"], registry=r)
    c.labels("ok").inc(3)
    c.labels("rejected").inc()
    m = parse_prometheus(generate_latest(r).decode())
    assert m['lab_requests_total{outcome="ok"}'] == 3.0
    assert m['lab_requests_total{outcome="rejected"}'] == 1.0
