"""Self-study mode for notebook 08: a learner working alone commits their answers and gets,
for each item, whether the committed answer is right (for a short answer, which concept
was missing or named only to be denied) and the explanation of the expected one. **It reveals the answers**, so it needs the answer key — the course's grader-only
``keys/kc08.json`` (``answer_key``), which a student in a class does not have: the
course repo has it, or ``LAB_KEYS_DIR`` points at a copy. Without the key it says so.

A commit is final: ``review(globals(), commit=True)`` stores the answers it sees in a small
state file, and later feedback is always about those committed answers (changing an answer
afterwards does not change its verdict). Grading is unaffected: under autograde this does
nothing, and the marks come from the trusted pass.
"""
from __future__ import annotations

import ast
import json
import os
from pathlib import Path

from ..paths import autograde_mode
from . import answer_key, kc08

STATE_ENV = "LABSUPPORT_KC07_STATE"  # where commits are kept
NO_KEY = ("Self-study feedback is off: it needs the answer key (the course's keys/ folder, "
          f"or {answer_key.DIR_ENV} pointing at it), which students in a class do not have; "
          "your trainer's grading gives you feedback. Working alone with the course repo? "
          "The key is in its keys/ folder. Self-study feedback reveals the answers.")


def state_path() -> Path:
    return Path(os.environ.get(STATE_ENV, Path.home() / ".labsupport" / "kc08_committed.json"))


def _load(path: Path) -> dict:
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return {}


def review(namespace: dict, commit: bool = False, path: Path | None = None,
           key: dict | None = None) -> list[str]:
    """Commit the answers in ``namespace`` (with ``commit``) and print feedback on every
    committed one, from ``key`` (default: ``answer_key.load("kc08")``). Returns the
    printed lines."""
    if autograde_mode():
        return []
    key = answer_key.load(kc08.KEY_FILE) if key is None else key
    if key is None:
        print(NO_KEY)
        return [NO_KEY]
    path = state_path() if path is None else Path(path)
    done = _load(path)
    answers = {i: namespace[i] for i in kc08.FORM  # answered: a plain value, not the stub
               if type(namespace.get(i)) in (str, bool, int, float)}
    if commit:
        new = {i: repr(a) for i, a in answers.items() if i not in done}
        if new:
            done.update(new)
            try:
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(json.dumps(done, indent=1))
            except OSError as exc:
                print(f"could not save your commit ({exc}); feedback is for this run only")
    lines = []
    for item in kc08.FORM:
        if item not in done:
            lines.append(f"{item}: " + ("not committed yet" if item in answers else "not answered"))
            continue
        answer = ast.literal_eval(done[item])
        try:
            v = kc08.assess(item, answer, key[item]) if item in key else kc08.Verdict(False)
        except AssertionError as err:
            v = kc08.Verdict(False, str(err).removeprefix(f"{item}: "))
        said = {True: "right", False: "not right", None: "not sure (a trainer would read it)"}
        why = f": {v.why}" if v.why else ""
        changed = item in answers and repr(answers[item]) != done[item]
        lines.append(f"{item}: {said[v.right]}{why} (committed {done[item]})"
                     f"{' - changed since, the verdict is for the committed one' if changed else ''}"
                     f"\n    {key.get(item, {}).get('explain', '')}")
    if not commit and len(done) < len(kc08.FORM):
        lines.append("set COMMIT = True and run this cell again to commit your answers and see "
                     "the feedback (it shows the expected answers); committed answers are final")
    print("\n".join(lines))
    return lines
