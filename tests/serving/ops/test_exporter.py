"""``labsupport export``: knobs → Triton / TF Serving / Ray Serve text, and its CLI. A
work-conserving (or bucketed) service must not become a window that makes a lone request
wait: its exported delay is 0, with a comment saying why."""
import json
import re

import pytest

from labsupport.batching.config import DELAY_MEANING, BatchConfig
from labsupport.serving.ops import exporter
from svc_helpers import service  # noqa: F401  (fixture)


def test_units_are_converted_per_system():
    cfg = BatchConfig(max_batch=16, max_delay_ms=2.5, max_queue=100, policy="window")
    tri, tfs, ray = (exporter.export(cfg, preferred=(4, 8))[s] for s in exporter.SYSTEMS)
    assert re.search(r"^max_batch_size: 16$", tri, re.M)
    assert "max_queue_delay_microseconds: 2500" in tri and "max_queue_size: 100" in tri
    assert "preferred_batch_size: [ 4, 8 ]" in tri and tri.count("{") == tri.count("}")
    assert "batch_timeout_micros { value: 2500 }" in tfs
    assert "max_enqueued_batches { value: 7 }" in tfs  # ceil(100 / 16) batches wait
    assert re.findall(r"allowed_batch_sizes: (\d+)", tfs) == ["4", "8", "16"]
    assert "@serve.batch(max_batch_size=16, batch_wait_timeout_s=0.0025)" in ray
    assert "max_ongoing_requests=32" in ray  # >= 2 x max_batch, else batches are capped


def test_table_answers_the_two_questions_for_every_system():
    rows = {r[""]: r for r in exporter.TABLE}
    assert {"wait clock starts", "lone request, idle server"} <= set(rows)
    for row in exporter.TABLE:
        assert set(row) == {"", "labsupport", "Triton", "TF Serving", "Ray Serve"}
        assert all(v.strip() for v in row.values())
    assert "dequeue" in rows["wait clock starts"]["Ray Serve"]
    assert exporter.table_markdown().count("\n") == len(exporter.TABLE) + 1


@pytest.mark.parametrize("argv,words", [(["--max-batch", "0"], ["max_batch", "[1, 4096]"]),
                                        (["--max-delay-ms", "-3"], ["max_delay_ms"]),
                                        (["--preferred", "64"], ["preferred", "[1, 32]"])])
def test_bad_knobs_are_refused(argv, words, capsys):
    assert exporter.main(argv) == 2
    err = capsys.readouterr().err
    assert all(w in err for w in words), err


def test_cli_writes_files_and_reads_a_running_service(service, tmp_path, capsys):
    assert exporter.main(["--from-url", service.url, "--out", str(tmp_path), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    cfg = service.get("/config")
    assert data["config"] == cfg  # the service's BatchConfig, every knob
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(exporter.FILENAMES.values())
    text = (tmp_path / "config.pbtxt").read_text()
    want = exporter.delay_us(BatchConfig(**cfg))  # 0 for a work-conserving service
    assert f"max_queue_delay_microseconds: {want}" in text


@pytest.mark.parametrize("policy", ["work_conserving", "bucketed", "adaptive", "naive"])
def test_a_policy_that_never_waits_exports_no_wait(policy):
    out = exporter.export(BatchConfig(max_batch=16, max_delay_ms=20.0, policy=policy))
    assert "max_queue_delay_microseconds: 0  #" in out["triton"]
    assert "batch_timeout_micros { value: 0 }  #" in out["tf_serving"]
    assert "batch_wait_timeout_s=0)" in out["ray_serve"]
    meaning = DELAY_MEANING[policy].split(":")[0]  # "unused" or "an ageing threshold, ..."
    assert f"under the lab's {policy} policy max_delay_ms is {meaning}" in out["triton"]


@pytest.mark.parametrize("policy", ["work_conserving", "bucketed", "window"])
def test_every_comment_is_a_whole_sentence(policy):
    """A comment ends with a full stop (0.2's ended mid-sentence: "a delay here would")."""
    for system, text in exporter.export(BatchConfig(max_delay_ms=20.0, policy=policy)).items():
        for comment in re.findall(r"#\s*(.*)$", text, re.M):
            assert comment.endswith("."), (system, comment)


@pytest.mark.parametrize("policy", ["window", "early"])
def test_a_window_policy_exports_its_delay(policy):
    out = exporter.export(BatchConfig(max_batch=16, max_delay_ms=20.0, policy=policy))
    assert "max_queue_delay_microseconds: 20000\n" in out["triton"]
    assert "batch_wait_timeout_s=0.02)" in out["ray_serve"]


def test_bad_policy_names_the_parameter(capsys):
    with pytest.raises(ValueError, match="policy must be one of"):
        exporter.export(BatchConfig(policy="fastest"))
    with pytest.raises(SystemExit):
        exporter.main(["--policy", "fastest"])
    assert "--policy: invalid choice" in capsys.readouterr().err


def test_cli_takes_the_policy(capsys):
    assert exporter.main(["--policy", "work_conserving", "--max-delay-ms", "5",
                          "--system", "triton"]) == 0
    assert "max_queue_delay_microseconds: 0" in capsys.readouterr().out
    assert exporter.main(["--policy", "window", "--max-delay-ms", "5",
                          "--system", "triton"]) == 0
    assert "max_queue_delay_microseconds: 5000\n" in capsys.readouterr().out


@pytest.mark.parametrize("policy,delay_us", [("adaptive", 0), ("window", 7000)])
def test_serve_runs_the_whole_config_and_export_reads_it(policy, delay_us, capsys):
    """``labsupport serve --policy adaptive --slo-p99-ms 50`` runs adaptive with its SLO;
    exporting it gives no queue delay, while a window service exports its delay."""
    from labsupport.serving.ops.launcher import start_service
    svc = start_service("fake", policy=policy, slo_p99_ms=50.0, max_delay_ms=7.0,
                        edges=(16, 64), timeout_s=30)
    try:
        cfg = svc.get("/config")
        assert (cfg["policy"], cfg["slo_p99_ms"], cfg["edges"]) == (policy, 50.0, [16, 64])
        assert svc.embed(["one text", "two texts here"]).shape == (2, 16)
        assert exporter.main(["--from-url", svc.url, "--system", "triton"]) == 0
        assert f"max_queue_delay_microseconds: {delay_us}" in capsys.readouterr().out
    finally:
        svc.stop()
