"""Grader-only material: the course's ``keys/`` folder, beside ``solutions/``.

Answer keys live there and nowhere in this package or the release (``keys/README.md``).
The grading process reads them (``labgrader``: in its own process, never in one
that ran a student's code); a learner working alone with the course repo reads them in
self-study mode (``kc08_feedback``), which reveals the answers. Without the folder — a
student who has only the release and the package — ``load`` finds nothing.
"""
from __future__ import annotations

import json
import os
from pathlib import Path

from ..paths import REPO

FOLDER = "keys"
DIR_ENV = "LAB_KEYS_DIR"  # points at a grader folder elsewhere (self-study, a trainer's copy)


def folder(course_root: Path | str | None = None) -> Path:
    """Where the grader-only material is: ``$LAB_KEYS_DIR``, else ``<course>/keys``
    when the course has one, else the lab repo's own ``keys/``."""
    env = os.environ.get(DIR_ENV)
    if env:
        return Path(env)
    if course_root is not None and (Path(course_root) / FOLDER).is_dir():
        return Path(course_root) / FOLDER
    return REPO / FOLDER


def load(name: str, where: Path | str | None = None) -> dict | None:
    """The key ``<folder>/<name>.json`` as a dict, or None when it is absent or unreadable
    (as it is for students)."""
    path = Path(where if where is not None else folder()) / f"{name}.json"
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return None
