"""``labsupport export``: knobs → Triton / TF Serving / Ray Serve text, and its CLI. A
work-conserving (or bucketed) service must not become a window that makes a lone request
wait: its exported delay is 0, with a comment saying why."""
import json
import re

import pytest

from labsupport.serving.ops import exporter
from svc_helpers import service  # noqa: F401  (fixture)


def test_units_are_converted_per_system():
    k = exporter.Knobs(max_batch=16, max_delay_ms=2.5, max_queue=100, preferred=(4, 8))
    tri, tfs, ray = (exporter.export(k)[s] for s in exporter.SYSTEMS)
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
    assert data["knobs"]["max_batch"] == cfg["max_batch"]
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(exporter.FILENAMES.values())
    text = (tmp_path / "config.pbtxt").read_text()
    want = exporter.Knobs(cfg["max_batch"], cfg["max_delay_ms"], cfg["max_queue"],
                        policy=cfg["policy"]).delay_us  # 0 for a work-conserving service
    assert f"max_queue_delay_microseconds: {want}" in text
from labsupport.serving.ops import exporter


@pytest.mark.parametrize("policy", ["work_conserving", "bucketed"])
def test_work_conserving_exports_no_wait(policy):
    k = exporter.Knobs(max_batch=16, max_delay_ms=20.0, policy=policy)
    out = exporter.export(k)
    assert "max_queue_delay_microseconds: 0  #" in out["triton"]
    assert "batch_timeout_micros { value: 0 }  #" in out["tf_serving"]
    assert "batch_wait_timeout_s=0)" in out["ray_serve"]
    assert "never makes a lone request wait" in out["triton"]


@pytest.mark.parametrize("policy", ["work_conserving", "window"])
def test_every_comment_is_a_whole_sentence(policy):
    """A comment ends with a full stop (0.2's ended mid-sentence: "a delay here would")."""
    for system, text in exporter.export(exporter.Knobs(max_delay_ms=20.0, policy=policy)).items():
        for comment in re.findall(r"#\s*(.*)$", text, re.M):
            assert comment.endswith("."), (system, comment)


def test_window_exports_its_delay():
    out = exporter.export(exporter.Knobs(max_batch=16, max_delay_ms=20.0, policy="window"))
    assert "max_queue_delay_microseconds: 20000\n" in out["triton"]
    assert "batch_wait_timeout_s=0.02)" in out["ray_serve"]


def test_bad_policy_names_the_parameter():
    with pytest.raises(ValueError, match="policy must be one of"):
        exporter.Knobs(policy="fastest")


def test_cli_takes_the_policy(capsys):
    assert exporter.main(["--policy", "work_conserving", "--max-delay-ms", "5",
                          "--system", "triton"]) == 0
    assert "max_queue_delay_microseconds: 0" in capsys.readouterr().out
