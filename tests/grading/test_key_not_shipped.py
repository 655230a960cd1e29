"""The knowledge check's key cannot be recovered from what ships to students: the installed
package, the release (``notebooks/``) and the docs. Tried as a student would:

- every function that ships is asked about every answer a student could try (each option,
  both truth values, a range of numbers, the lab's own phrases, and — so the test can fail —
  the right answers themselves), in a copy of what ships: no outcome tells a right answer
  from a wrong one of the same form;
- no shipped file holds hash or seal material to brute-force offline (the attack that
  recovered every answer of release 0.2.0 in seconds); the only digests, nbgrader's
  checksums, are of the released cells as they are (nothing hidden behind them);
- the key's explanations and the solution's answer lines appear in no shipped file.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = ("labsupport", "notebooks", "docs", "README.md")
KEY = json.loads((ROOT / "keys" / "kc08.json").read_text())


def shipped_files(base: Path = ROOT, names: tuple[str, ...] = SHIPPED) -> list[Path]:
    """Every file of ``names`` under ``base`` (what ships: the repo's by default; the
    student pack's in tests/grading/test_student_pack.py)."""
    out = []
    for name in names:
        p = base / name
        out += [p] if p.is_file() else [f for f in sorted(p.rglob("*")) if f.is_file()
                                          and "__pycache__" not in f.parts]
    return out


def _shipped_text(files: list[Path] | None = None) -> str:
    return "\n".join(p.read_text(errors="ignore") for p in (files or shipped_files()))


def _phrases(limit: int = 4000, files: list[Path] | None = None) -> list[str]:
    """The lab's own 1- to 3-word phrases, most frequent first (what the attack of 0.2.0
    tried), plus every phrase the key accepts (so a leak would be found)."""
    from collections import Counter
    words = re.findall(r"[a-z][a-z0-9_]+", _shipped_text(files).lower())
    grams = Counter(" ".join(words[i:i + n]) for n in (1, 2, 3) for i in range(len(words) - n + 1))
    accepted = {p for e in KEY.values() for g in e.get("concepts", []) for p in g}
    return sorted(accepted) + [g for g, _ in grams.most_common(limit) if g not in accepted]


PROBE = r"""
import json, sys
from pathlib import Path
from labsupport.exercises import kc08, kc08_feedback
cands, state = json.loads(sys.stdin.read()), Path(sys.argv[1])

def outcome(fn):
    try:
        fn()
        return "ok"
    except BaseException as e:  # noqa: BLE001
        return f"{type(e).__name__}: {e}"

out = {}
for item, answers in cands.items():
    rows = []
    for a in answers:
        state.unlink(missing_ok=True)
        rows.append([outcome(lambda: getattr(kc08, f"check_{item}")(a)),
                     outcome(lambda: getattr(kc08, f"check_{item}")(a, hidden=True)),
                     " | ".join(kc08_feedback.review({item: a}, commit=True, path=state))])
    out[item] = rows
print(json.dumps(out))
"""


def _candidates(files: list[Path] | None = None) -> dict[str, list]:
    from labsupport.exercises import kc08
    phrases = _phrases(files=files)
    out = {}
    for item, form in kc08.FORM.items():
        if form.kind == "mc":
            out[item] = list(form.options) + [f"({o})" for o in form.options]
        elif form.kind == "tf":
            out[item] = [True, False, "true", "false"]
        elif form.kind == "number":  # small numbers, fractions, and the answer's neighbours
            right = KEY[item]["answer"]  # (57344 bytes lies far outside any small range)
            out[item] = list(range(0, 301)) + [round(k / 100, 2) for k in range(101)] + [
                n for n in (right - 1, right, right + 1, 2 * right, right / 2) if n > 300]
        else:
            out[item] = phrases
    return out


def brute_force(course: Path, home: Path) -> None:
    """Ask every knowledge-check function of the package under ``course`` (importable from
    there) about every candidate answer, in a process that sees only ``course``; fails if
    any outcome tells a right answer from a wrong one of the same form."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("LAB_")}
    env.update(PYTHONPATH=str(course), HOME=str(home))
    cands = _candidates(shipped_files(course, tuple(p.name for p in course.iterdir())))
    proc = subprocess.run([sys.executable, "-c", PROBE, str(home / "state.json")],
                          input=json.dumps(cands), capture_output=True, text=True, env=env,
                          cwd=course, timeout=900)
    assert proc.returncode == 0, proc.stderr[-2000:]
    got = json.loads(proc.stdout.splitlines()[-1])
    for item, rows in got.items():
        form_ok = [tuple(r) for r in rows if r[0] == "ok"]
        assert form_ok, f"{item}: no candidate even has the right form"
        assert len(set(form_ok)) == 1, \
            f"{item}: what ships answers differently for different answers: {set(form_ok)}"
    # the right answers were among them, and nothing told them apart
    right = {i: e["answer"] for i, e in KEY.items() if "answer" in e}
    for item, answer in right.items():
        assert answer in cands[item] or str(answer) in map(str, cands[item]), item


@pytest.mark.slow
def test_no_shipped_function_tells_right_from_wrong(tmp_path):
    course = tmp_path / "shipped"
    for name in SHIPPED:
        src = ROOT / name
        if src.is_dir():
            shutil.copytree(src, course / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy(src, course / name)
    brute_force(course, tmp_path)


def test_no_digest_or_seal_ships():
    no_digest_or_seal(shipped_files(), ROOT)


def no_digest_or_seal(files: list[Path], base: Path) -> None:
    """No file holds hash or seal material but nbgrader's checksums of the cells as they are."""
    from nbgrader.utils import compute_checksum
    hexes = re.compile(r"\b[0-9a-f]{16,}\b")
    blobs = re.compile(r"[A-Za-z0-9+/]{40,}={0,2}")
    for path in files:
        text = path.read_text(errors="ignore")
        if path.suffix == ".ipynb":
            nb = nbformat.read(path, 4)
            for c in nb.cells:
                meta = c.metadata.get("nbgrader", {})
                if "checksum" in meta:  # the released cell's own checksum: nothing hidden
                    assert meta["checksum"] == compute_checksum(c), (path.name, meta["grade_id"])
                    text = text.replace(meta["checksum"], "")
        assert not hexes.search(text), f"{path.relative_to(base)}: {hexes.search(text).group(0)}"
        assert not blobs.search(text), f"{path.relative_to(base)}: {blobs.search(text).group(0)[:50]}"


def test_no_answer_or_explanation_is_readable_in_what_ships():
    no_answer_or_explanation(_shipped_text())


def no_answer_or_explanation(text: str) -> None:
    """Neither a key's explanation nor a solution's answer line is in ``text``."""
    text = text.lower()
    for item, entry in KEY.items():
        assert entry["explain"][:40].lower() not in text, f"{item}'s explanation ships"
    sol = nbformat.read(ROOT / "solutions" / "08_knowledge_check" / "08_knowledge_check.ipynb", 4)
    for c in sol.cells:
        gid = c.metadata.get("nbgrader", {}).get("grade_id", "")
        if c.metadata.get("nbgrader", {}).get("solution") and c.cell_type == "code":
            for line in c.source.splitlines():
                if line.startswith(f"{gid} ="):
                    assert line.lower() not in text, f"the solution line {line!r} ships"


def test_the_grader_tables_of_phrasings_do_not_ship():
    """The short answers' test tables (``keys/kc08_phrasings.json``, the held-out
    ``keys/kc08_heldout.json``) sit beside the key: no shipped file is one of them or
    holds their note, and none of their phrasings of three words or more (right or wrong)
    is readable in what ships as a quoted string (as a copied table would hold it)."""
    folder = ROOT / "keys"
    tables = sorted(folder.glob("kc08_*.json"))
    assert {p.name for p in tables} >= {"kc08_phrasings.json", "kc08_heldout.json"}
    shipped = shipped_files()
    names = {p.name for p in shipped}
    text = re.sub(r"\s+", " ", _shipped_text().lower())
    for table in tables:
        assert table.name not in names, f"{table.name} ships"
        data = json.loads(table.read_text())
        assert data["_about"][:60].lower() not in text, f"{table.name}'s note ships"
        rows = {i: r for i, r in data.items() if not i.startswith("_")}
        assert rows, table.name
        for item, kinds in rows.items():
            for phrasing in kinds["right"] + kinds["wrong"]:
                if len(phrasing.split()) >= 3:
                    for quoted in (json.dumps(phrasing.lower()), repr(phrasing.lower())):
                        assert quoted not in text, f"{table.name}: {item} {phrasing!r} ships"
