"""Feedback for students working alone: only after a commit, always about the committed
answer, and no answer readable in the module or the release."""
from pathlib import Path

import nbformat

from labsupport.exercises import kc08, kc08_feedback

ROOT = Path(__file__).resolve().parents[2]
SOLUTION = ROOT / "solutions" / "08_knowledge_check" / "08_knowledge_check.ipynb"


def test_no_feedback_before_commit(tmp_path, capsys):
    state = tmp_path / "state.json"
    lines = kc08_feedback.review({"kc08_03": "a"}, commit=False, path=state)
    assert not state.exists()
    assert lines[2] == "kc08_03: not committed yet" and "COMMIT = True" in lines[-1]


def test_commit_is_final_and_feedback_names_content(tmp_path):
    state = tmp_path / "state.json"
    ns = {"kc08_11": 160, "kc08_04": "it is not waiting at all", "kc08_18": 10}
    lines = kc08_feedback.review(ns, commit=True, path=state)
    by_item = {line.split(":")[0]: line for line in lines}
    assert by_item["kc08_11"].startswith("kc08_11: right")
    assert by_item["kc08_04"].startswith("kc08_04: not right")
    assert "timer" in by_item["kc08_04"]  # content: what the expected answer is about
    assert "25 ms" in by_item["kc08_18"] and "not right" in by_item["kc08_18"]
    # a changed answer after the commit keeps the committed verdict
    lines = kc08_feedback.review({**ns, "kc08_18": 25}, commit=True, path=state)
    line = next(x for x in lines if x.startswith("kc08_18"))
    assert line.startswith("kc08_18: not right") and "changed since" in line


def test_explanations_are_sealed():
    module = Path(kc08_feedback.__file__).read_text().lower()
    release = (ROOT / "notebooks" / SOLUTION.parent.name / SOLUTION.name).read_text().lower()
    nb = nbformat.read(SOLUTION, as_version=4)
    for c in nb.cells:
        gid = c.metadata.get("nbgrader", {}).get("grade_id")
        if gid in kc08.KEY and c.cell_type == "code":
            ns = {}
            exec("\n".join(x for x in c.source.splitlines() if not x.startswith("#")), ns)
            answer = ns[gid]
            if isinstance(answer, str) and len(answer) > 3:
                assert answer.lower() not in module and answer.lower() not in release
    for item, blob in kc08_feedback.SEALED.items():
        text = kc08_feedback.unseal(item, blob)
        assert len(text) > 20 and text.lower()[:30] not in module
