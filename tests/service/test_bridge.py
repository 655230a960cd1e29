"""The production bridge: knobs → Triton / TF Serving / Ray Serve text, and its CLI."""
import json
import re

import pytest

from labsupport import bridge
from svc_helpers import service  # noqa: F401  (fixture)


def test_units_are_converted_per_system():
    k = bridge.Knobs(max_batch=16, max_delay_ms=2.5, max_queue=100, preferred=(4, 8))
    tri, tfs, ray = (bridge.export(k)[s] for s in bridge.SYSTEMS)
    assert re.search(r"^max_batch_size: 16$", tri, re.M)
    assert "max_queue_delay_microseconds: 2500" in tri and "max_queue_size: 100" in tri
    assert "preferred_batch_size: [ 4, 8 ]" in tri and tri.count("{") == tri.count("}")
    assert "batch_timeout_micros { value: 2500 }" in tfs
    assert "max_enqueued_batches { value: 7 }" in tfs  # ceil(100 / 16) batches wait
    assert re.findall(r"allowed_batch_sizes: (\d+)", tfs) == ["4", "8", "16"]
    assert "@serve.batch(max_batch_size=16, batch_wait_timeout_s=0.0025)" in ray
    assert "max_ongoing_requests=32" in ray  # >= 2 x max_batch, else batches are capped


def test_table_answers_the_two_questions_for_every_system():
    rows = {r[""]: r for r in bridge.TABLE}
    assert {"wait clock starts", "lone request, idle server"} <= set(rows)
    for row in bridge.TABLE:
        assert set(row) == {"", "labsupport", "Triton", "TF Serving", "Ray Serve"}
        assert all(v.strip() for v in row.values())
    assert "dequeue" in rows["wait clock starts"]["Ray Serve"]
    assert bridge.table_markdown().count("\n") == len(bridge.TABLE) + 1


@pytest.mark.parametrize("argv,words", [(["--max-batch", "0"], ["max_batch", "[1, 4096]"]),
                                        (["--max-delay-ms", "-3"], ["max_delay_ms"]),
                                        (["--preferred", "64"], ["preferred", "[1, 32]"])])
def test_bad_knobs_are_refused(argv, words, capsys):
    assert bridge.main(argv) == 2
    err = capsys.readouterr().err
    assert all(w in err for w in words), err


def test_cli_writes_files_and_reads_a_running_service(service, tmp_path, capsys):
    assert bridge.main(["--from-url", service.url, "--out", str(tmp_path), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    cfg = service.get("/config")
    assert data["knobs"]["max_batch"] == cfg["max_batch"]
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(bridge.FILENAMES.values())
    text = (tmp_path / "config.pbtxt").read_text()
    want = bridge.Knobs(cfg["max_batch"], cfg["max_delay_ms"], cfg["max_queue"],
                        policy=cfg["policy"]).delay_us  # 0 for a work-conserving service
    assert f"max_queue_delay_microseconds: {want}" in text
