"""``labsupport demo-check``: what notebook 07 will show, measured before class (run here on
the toy model; ``make demo-check`` uses MiniLM)."""
import json

import pytest

from labsupport import demo_check

pytestmark = pytest.mark.timeout(180)


def test_check_measures_and_says_what_each_section_shows(monkeypatch, tmp_path, capsys):
    monkeypatch.setenv("LAB_PEERS_DIR", str(tmp_path / "no-peers"))
    rep = demo_check.check(model="fake")
    cap = rep["capacity"]
    assert cap["http16"] > cap["http1"] > 0 and cap["demo_rate"] > cap["http1"]
    assert [line[:2] for line in rep["plan"]] == ["§1", "§2", "§4", "§5"]
    assert "make peers" in rep["peers"]
    text = demo_check.describe(rep)
    assert f"{cap['demo_rate']:g} req/s" in text and "§7 peers" in text
    assert ("ready:" in text) == (not rep["problems"])


def test_main_prints_json_and_fails_on_a_problem(monkeypatch, capsys):
    rep = {"loadavg": [0.5], "problems": ["the `openai` package is missing"], "notes": [],
           "service_ready_s": 1.0, "plan": ["§1 …"], "peers": "skipped", "aiperf": "x"}
    monkeypatch.setattr(demo_check, "check", lambda **kw: rep)
    assert demo_check.main(["--json"]) == 1
    assert json.loads(capsys.readouterr().out)["problems"] == rep["problems"]
    assert demo_check.main([]) == 1
    assert "PROBLEM: the `openai`" in capsys.readouterr().out
