"""One nbgrader course on disk (``Course``) and its configuration (``course_config``).

The course is configured in ``autograde/nbgrader_config.py`` (``solutions/`` is the
source, ``notebooks/`` the release); every command here drives nbgrader's own Python
API, so the result is what ``nbgrader …`` would give. ``course_config(root)`` re-roots
the same configuration into another folder (the tests' temporary courses).
"""
from __future__ import annotations

import os
import re
import shutil
import sys
import tempfile
import time
import zipfile
from pathlib import Path

from traitlets.config import Config

from labsupport.paths import REPO as ROOT
CONFIG_FILE = ROOT / "autograde" / "nbgrader_config.py"


def course_config(root: Path | str | None = None, **overrides) -> Config:
    """The course config; with ``root``, the same course re-rooted in another folder.

    ``overrides`` are ``"Class.trait": value`` pairs, e.g. ``{"Execute.timeout": 10}``.
    """
    from traitlets.config.loader import PyFileConfigLoader
    cfg = PyFileConfigLoader(CONFIG_FILE.name, path=str(CONFIG_FILE.parent)).load_config()
    if root is not None:
        root = Path(root).resolve()
        cfg.CourseDirectory.root = str(root)
        cfg.CourseDirectory.db_url = f"sqlite:///{root / 'autograde' / 'gradebook.db'}"
    for key, value in overrides.items():
        cls, trait = key.split(".")
        setattr(cfg[cls], trait, value)
    return cfg


class Course:
    """One nbgrader course on disk, driven through ``NbGraderAPI``."""

    def __init__(self, cfg: Config | None = None):
        # nbgrader shells out to alembic: the venv's bin must be on PATH.
        bindir = str(Path(sys.executable).parent)
        if bindir not in os.environ.get("PATH", "").split(os.pathsep):
            os.environ["PATH"] = bindir + os.pathsep + os.environ.get("PATH", "")
        from nbgrader.apps import NbGraderAPI
        from nbgrader.coursedir import CourseDirectory
        self.cfg = cfg if cfg is not None else course_config()
        self.coursedir = CourseDirectory(config=self.cfg)
        self.api = NbGraderAPI(coursedir=self.coursedir, config=self.cfg)
        self.root = Path(self.coursedir.root)
        db = self.coursedir.db_url.removeprefix("sqlite:///")
        if db != self.coursedir.db_url:
            Path(db).parent.mkdir(parents=True, exist_ok=True)

    def _dir(self, name: str) -> Path:
        return self.root / getattr(self.coursedir, f"{name}_directory")

    def assignments(self) -> list[str]:
        """Assignment folders of the source that hold at least one notebook."""
        src = self._dir("source")
        return sorted(p.name for p in src.iterdir() if p.is_dir() and any(p.glob("*.ipynb")))

    def _run(self, what: str, call, *args) -> bool:
        """Run one NbGraderAPI call, print a one-line outcome (and the log's tail on failure)."""
        t0 = time.perf_counter()
        result = self.last_result = call(*args)
        ok = bool(result.get("success"))
        print(f"{'ok  ' if ok else 'FAIL'} {what} ({time.perf_counter() - t0:.1f} s)")
        if not ok:
            tail = (result.get("log", "") + result.get("error", "")).splitlines()[-40:]
            print("\n".join(tail), file=sys.stderr)
        return ok

    def release(self, names: list[str] | None = None) -> bool:
        """Regenerate the release of ``names`` (default: every assignment)."""
        if not names:  # a full release also drops folders whose source is gone
            names = self.assignments()
            rel = self._dir("release")
            for old in sorted(rel.iterdir()) if rel.is_dir() else []:
                if old.is_dir() and old.name not in names:
                    shutil.rmtree(old)
                    print(f"ok   removed {old.relative_to(self.root)} (no source)")
        return all([self._run(f"release {a}", self.api.generate_assignment, a) for a in names])

    def _in_gradebook(self, assignment: str) -> bool:
        from nbgrader.api import Gradebook, MissingEntry
        with Gradebook(self.coursedir.db_url) as gb:
            try:
                gb.find_assignment(assignment)
                return True
            except MissingEntry:
                return False

    def submissions(self, step: str, assignment: str | None = None) -> list[tuple[str, str]]:
        """(student, assignment) pairs found under the ``step`` folder (submitted, …)."""
        base = self._dir(step)
        if not base.is_dir():
            return []
        return sorted((s.name, a.name) for s in base.iterdir() if s.is_dir()
                      for a in s.iterdir() if a.is_dir() and assignment in (None, a.name))

    def to_autograde(self, assignment: str | None = None, students: list[str] | None = None,
                     force: bool = False) -> list[tuple[str, str]]:
        """``(student, assignment)`` submissions to grade: those not graded yet
        (``is_graded``; all with ``force``); says so when there are none."""
        pairs = [(s, a) for s, a in self.submissions("submitted", assignment)
                 if students is None or s in students]
        todo = pairs if force else [p for p in pairs if not self.is_graded(*p)]
        if len(todo) < len(pairs):
            print(f"skip {len(pairs) - len(todo)} submission(s) already graded "
                  "(--force regrades them)")
        if not pairs:
            print(f"nothing to autograde in {self._dir('submitted')}", file=sys.stderr)
        return todo

    def submitted_any(self, assignment: str | None, students: list[str] | None) -> bool:
        """Whether any submission (of ``assignment``, by ``students``) is in the course:
        when none is left to grade, the run did its job."""
        return any(students is None or s in students
                   for s, _ in self.submissions("submitted", assignment))

    def is_graded(self, student: str, assignment: str) -> bool:
        """Whether this submission's autograde finished: the gradebook has it and every
        submitted notebook has an autograded copy no older than it (an interrupted run
        leaves neither, or the old one: that submission is graded again)."""
        from nbgrader.api import Gradebook, MissingEntry
        sub = self._dir("submitted") / student / assignment
        done = self._dir("autograded") / student / assignment
        for nb in sub.glob("*.ipynb"):
            out = done / nb.name
            if not out.is_file() or out.stat().st_mtime < nb.stat().st_mtime:
                return False
        with Gradebook(self.coursedir.db_url) as gb:
            try:
                gb.find_submission(assignment, student)
            except MissingEntry:
                return False
        return any(sub.glob("*.ipynb"))

    def autograde(self, assignment: str | None = None, students: list[str] | None = None,
                  force: bool = False) -> bool:
        """Autograde every submission (of ``assignment``, by ``students``) not graded yet
        (every one with ``force``); nbgrader's own
        pipeline, each notebook in its sandbox, after the solutions got full marks there
        (``preflight``). Prints each submission's flagged items; stops (False) when the
        preflight fails or the package seal breaks."""
        from . import review, seal
        from .seed import grader_env
        grader_env()  # one seed for the whole run, preflight included
        pairs = self.to_autograde(assignment, students, force)
        if not pairs:
            return self.submitted_any(assignment, students)
        ok, pairs = self.prepare_autograde(pairs)
        self.announce_sandbox()
        if not self.preflight(sorted({a for _, a in pairs})):
            return False
        sealed = seal.session(self.root)
        for student, a in pairs:
            ok &= self._run(f"autograde {a} {student}", self.api.autograde, a, student)
            try:
                sealed.check(f"{student}/{a}")
            except seal.SealBroken as err:
                print(f"FAIL {err}", file=sys.stderr)
                return False
            for line in review.lines(self.coursedir.db_url, a, student):
                print(line)
        return ok

    def announce_sandbox(self) -> str:
        """Say how student code will run (a warning unless fully isolated); the mode."""
        from .sandbox import WARNING, Sandbox, namespaces_available
        box = Sandbox(config=self.cfg)
        if box.mode == "namespaces" and not namespaces_available()[0]:
            raise ValueError(f"--sandbox namespaces: {namespaces_available()[1]}")
        mode = box.resolved_mode()
        if mode == "namespaces":
            print(f"sandbox: namespaces, grading uid {box.uid_base}+ (docs/trainers.md)")
        elif mode == "plain":
            print(WARNING, file=sys.stderr)
        else:
            why = "" if box.mode == "off" else f" (the sandbox needs Linux; this is {sys.platform})"
            print(f"WARNING: sandbox off{why}: student code runs as you, with your rights",
                  file=sys.stderr)
        return mode

    def preflight(self, assignments: list[str]) -> bool:
        """Grade the solutions of ``assignments`` first, in the same sandbox
        (``preflight.check``); False, with the items and why, unless they get full marks."""
        from .preflight import PreflightFailed, check
        try:
            check(self, assignments)
        except PreflightFailed as err:
            print(f"FAIL {err}", file=sys.stderr)
            return False
        if assignments:
            print(f"ok   preflight: the solutions of {', '.join(assignments)} get full marks")
        return True

    def prepare_autograde(self, pairs: list[tuple[str, str]]) -> tuple[bool, list[tuple[str, str]]]:
        """Teach the gradebook unknown assignments; drop those without points to win."""
        ok, keep = True, []
        for a in sorted({a for _, a in pairs}):
            if not self._in_gradebook(a):  # a fresh machine: the gradebook learns the cells
                ok &= self.release([a])
        for student, a in pairs:
            if self.max_score(a) > 0:
                keep.append((student, a))
        for a in sorted({a for _, a in pairs} - {a for _, a in keep}):
            print(f"skip {a}: it has no points to grade")
        return ok, keep

    def max_score(self, assignment: str) -> float:
        """The assignment's points in the gradebook (0 when unknown)."""
        from nbgrader.api import Gradebook, MissingEntry
        with Gradebook(self.coursedir.db_url) as gb:
            try:
                return float(gb.find_assignment(assignment).max_score)
            except MissingEntry:
                return 0.0

    def feedback(self, assignment: str | None = None) -> bool:
        """Feedback HTML for every autograded submission, hidden tests cleared."""
        pairs = self.submissions("autograded", assignment)
        if not pairs:
            print(f"nothing autograded yet in {self._dir('autograded')}", file=sys.stderr)
        ok = bool(pairs)
        for student, a in pairs:
            ok &= self._run(f"feedback {a} {student}", self.api.generate_feedback, a, student)
        return ok

    def export(self, dest: Path | str | None = None) -> Path:
        """Write the gradebook as CSV (nbgrader's CsvExportPlugin) plus a ``review`` column
        (flagged items and why, ``review.add_review_column``); returns the path."""
        from nbgrader.api import Gradebook
        from nbgrader.plugins import CsvExportPlugin
        from .review import add_review_column
        dest = Path(dest) if dest else self.root / "autograde" / "grades.csv"
        dest.parent.mkdir(parents=True, exist_ok=True)
        with Gradebook(self.coursedir.db_url) as gb:
            CsvExportPlugin(to=str(dest), config=self.cfg).export(gb)
        add_review_column(dest, self.coursedir.db_url)
        print(f"ok   grades -> {dest}")
        return dest

    def collect(self, src: Path | str, assignment: str | None = None,
                regexp: str | None = None) -> list[tuple[str, str]]:
        """Import submissions: a folder ``<student>/<assignment>/<nb>.ipynb`` or an LMS zip."""
        src = Path(src)
        if src.is_dir():
            return self._collect_folder(src)
        if zipfile.is_zipfile(src):
            return self._collect_zip(src, assignment, regexp)
        raise ValueError(f"collect: {src} is neither a folder nor a zip file")

    def _collect_folder(self, src: Path) -> list[tuple[str, str]]:
        known, pairs = set(self.assignments()), []
        for nb in sorted(src.glob("*/*/*.ipynb")):
            student, a = nb.parent.parent.name, nb.parent.name
            if a not in known:
                print(f"skip {nb}: {a!r} is not an assignment ({', '.join(sorted(known))})",
                      file=sys.stderr)
                continue
            if (student, a) not in pairs:
                dest = self._dir("submitted") / student / a
                shutil.rmtree(dest, ignore_errors=True)
                shutil.copytree(nb.parent, dest, ignore=shutil.ignore_patterns(".ipynb_checkpoints"))
                pairs.append((student, a))
                print(f"ok   collect {a} {student}")
        return pairs

    def notebook_stems(self, assignment: str) -> list[str]:
        return sorted(p.stem for p in (self._dir("source") / assignment).glob("*.ipynb"))

    def default_regexp(self, assignment: str) -> str:
        """Matches ``…/<student>/<nb>.ipynb``, ``…/<student>/<assignment>/<nb>.ipynb`` and
        LMS renames such as ``…/<student>_<ids>_<nb>.ipynb`` (Canvas) or ``<nb>-1.ipynb``."""
        stems = "|".join(map(re.escape, self.notebook_stems(assignment)))
        a = re.escape(assignment)
        return (rf"^.*/(?!(?:{a}|{stems})(?:[/.-]|$))(?P<student_id>[^/_]+)(?:_[^/]*)?[/_]"
                rf"(?:{a}/)?(?P<file_id>{stems})(?:-\d+)?\.ipynb$")

    def _collect_zip(self, src: Path, assignment: str | None, regexp: str | None):
        from nbgrader.apps import ZipCollectApp
        from nbgrader.utils import capture_log
        if assignment is None:
            names = {Path(n).stem.rsplit("-", 1)[0] for n in zipfile.ZipFile(src).namelist()}
            found = [a for a in self.assignments()
                     if any(n.endswith(s) for s in self.notebook_stems(a) for n in names)]
            if len(found) != 1:
                raise ValueError(f"collect: say which assignment {src.name} holds "
                                 f"(--assignment; found {found or 'none'})")
            assignment = found[0]
        with tempfile.TemporaryDirectory(prefix="zipcollect-") as tmp:
            archive = Path(tmp) / assignment / "archive"
            archive.mkdir(parents=True)
            shutil.copy(src, archive / src.name)
            cfg = Config(self.cfg)
            cfg.ZipCollectApp.downloaded_directory = os.path.relpath(tmp, self.root)
            cfg.ZipCollectApp.force = True
            cfg.ZipCollectApp.strict = True
            cfg.FileNameCollectorPlugin.named_regexp = regexp or self.default_regexp(assignment)
            before = set(self.submissions("submitted", assignment))
            app = ZipCollectApp(coursedir=self.coursedir, config=cfg)
            self.coursedir.assignment_id = assignment
            try:
                ok = self._run(f"zip collect {assignment} from {src.name}", capture_log, app)
            finally:
                self.coursedir.assignment_id = ""
            if not ok:
                raise RuntimeError("zip collect failed (see the log above)")
            submitted = re.escape(str(self._dir("submitted")))
            students = sorted(set(re.findall(rf"Copying to: {submitted}/([^/]+)/",
                                             self.last_result.get("log", ""))))
        pairs = [(s, assignment) for s in students]
        for s, a in pairs:
            print(f"ok   collect {a} {s}{'' if (s, a) not in before else ' (replaced)'}")
        return pairs
