"""Self-study feedback: only with the answer key, only after a commit, always about the
committed answer; nothing under autograde; no explanation in the package or the release."""
from pathlib import Path

from labsupport.exercises import answer_key, kc08, kc08_feedback

ROOT = Path(__file__).resolve().parents[2]
RELEASE = ROOT / "notebooks" / "08_knowledge_check" / "08_knowledge_check.ipynb"


def test_no_feedback_before_commit(tmp_path, capsys):
    state = tmp_path / "state.json"
    lines = kc08_feedback.review({"kc08_03": "a"}, commit=False, path=state)
    assert not state.exists()
    assert lines[2] == "kc08_03: not committed yet" and "COMMIT = True" in lines[-1]


def test_commit_is_final_and_feedback_names_content(tmp_path):
    state = tmp_path / "state.json"
    ns = {"kc08_11": 160, "kc08_04": "it is not waiting at all", "kc08_18": 10,
          "kc08_01": NotImplementedError("kc08_01: write your answer here")}
    lines = kc08_feedback.review(ns, commit=True, path=state)
    by_item = {line.split(":")[0]: line for line in lines}
    assert by_item["kc08_11"].startswith("kc08_11: right")
    assert by_item["kc08_04"].startswith("kc08_04: not right")
    assert by_item["kc08_01"] == "kc08_01: not answered"  # the stub is no answer
    assert "timer" in by_item["kc08_04"]  # content: what the expected answer is about
    assert "only to deny it" in by_item["kc08_04"]  # and which concept was denied
    assert "25 ms" in by_item["kc08_18"] and "not right" in by_item["kc08_18"]
    # a changed answer after the commit keeps the committed verdict
    lines = kc08_feedback.review({**ns, "kc08_18": 25}, commit=True, path=state)
    line = next(x for x in lines if x.startswith("kc08_18"))
    assert line.startswith("kc08_18: not right") and "changed since" in line


def test_without_the_key_it_says_so(tmp_path, monkeypatch):
    monkeypatch.setenv(answer_key.DIR_ENV, str(tmp_path / "nowhere"))
    lines = kc08_feedback.review({"kc08_11": 160}, commit=True, path=tmp_path / "s.json")
    assert lines == [kc08_feedback.NO_KEY] and not (tmp_path / "s.json").exists()
    assert "160" not in " ".join(lines)


def test_under_autograde_it_does_nothing(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("LAB_AUTOGRADE", "1")
    assert kc08_feedback.review({"kc08_11": 160}, commit=True, path=tmp_path / "s.json") == []
    assert capsys.readouterr().out == "" and not (tmp_path / "s.json").exists()


def test_explanations_are_only_in_the_key():
    key = answer_key.load(kc08.KEY_FILE)
    shipped = " ".join(p.read_text().lower() for p in (ROOT / "labsupport").rglob("*.py"))
    shipped += RELEASE.read_text().lower()
    for item, entry in key.items():
        assert entry["explain"].lower()[:40] not in shipped, item
