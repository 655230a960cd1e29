"""Answers judged against a grader-only key (the knowledge check): the trusted pass hands
the student's answer back as a plain value, and it is judged here, in the grader's own
process — a process that never ran the student's code, the only one that reads the key
(``exercises.answer_key``: ``keys/`` of the course, else the lab's). A check module
whose content needs a key names it in ``KEY_FILE`` and judges with ``judge(item, answer,
key)``: ``(wrong, review)``, a message a student may read when wrong, or why a trainer
must read the answer (the judge is unsure); both None when right.
"""
from __future__ import annotations

from importlib import import_module

from labsupport.exercises import answer_key
from labsupport.exercises.registry import EXERCISES


def _module(answer_id: str):
    """The check module of ``answer_id`` when its content is judged against a key."""
    entry = EXERCISES.get(answer_id)
    if entry is None or entry.check_module is None:
        return None
    module = import_module(entry.check_module)
    return module if getattr(module, "KEY_FILE", None) else None


def target(answer_id: str) -> str | None:
    """The name whose value the trusted pass hands back when ``answer_id`` is keyed."""
    return EXERCISES[answer_id].target if _module(answer_id) else None


class Keys:
    """The keys of one course, read once each, on first use."""

    def __init__(self, course_root):
        self.folder = answer_key.folder(course_root)
        self._loaded: dict[str, dict | None] = {}

    def judge(self, answer_id: str, answer) -> tuple[str | None, str | None]:
        """``(wrong, review)``: the student's message when the answer is wrong, or why a
        trainer must grade it by hand (no key, or the judge is unsure); both None when it is
        right."""
        module = _module(answer_id)
        name = module.KEY_FILE
        if name not in self._loaded:
            self._loaded[name] = answer_key.load(name, self.folder)
        key = self._loaded[name]
        if key is None:
            return None, (f"the answer key {name}.json was not found in {self.folder}: "
                          "grade this item by hand")
        return module.judge(answer_id, answer, key)
