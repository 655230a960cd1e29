"""The trainers' package (never installed by students): the grading loop on nbgrader,
``labgrader release|collect|autograde|feedback|export|leaderboard|bench|pack``.

- ``course``: ``Course`` (one course on disk, driven through nbgrader's API) and
  ``course_config`` (the course's config, re-rootable into another folder);
- ``release``: the release's stubs (they name the exercise and let the cell run);
- ``pipeline``: the lab's steps inside nbgrader's autograde and feedback pipelines (short
  test errors in feedback, the trusted pass, review flags); ``execute``: the notebook run
  in its sandbox, in autograde mode; ``statuses``: what the sandbox saw, per item;
- ``trusted``, ``audit``, ``cellcode`` and ``roles``: grades that answer cells cannot forge
  (cell roles from the gradebook, magics audited, the lab's own answers flagged);
- ``seed``: the grading run's secret the hidden cases are drawn from;
- ``sandbox`` (settings), ``box`` (one notebook's sandbox), ``jail`` and ``mounts`` (the
  launcher), ``kernel``, ``cgroups`` and ``seal``: every submission's code runs isolated,
  limited and watched;
- ``inert``: autograded notebooks that run no script in the trainer's browser;
- ``review``: flagged items and why (``autograde`` prints them, ``export`` adds a column);
- ``parallel``: ``autograde --jobs N`` (one private gradebook per submission, one writer);
- ``references``, ``tripwire``, ``wire``: the lab's reference implementations (one table),
  the trusted pass's watch for them, and the record of a call handed to the judge;
- ``bench``: ``labgrader bench``, how long grading a class takes, sandbox on and off;
- ``pack``: ``labgrader pack``, the student pack (release, data, the students' wheel);
- ``leaderboard``: ``labgrader leaderboard``, notebook 09's challenge standings (CSV, HTML).
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from importlib import import_module

from . import parallel  # light: its heavy imports are inside functions

__version__ = "0.3.0.dev0"  # labsupport's (tests/layout/test_grader_apart.py)

# Imported on first use, so the trusted-pass helper (``python -m labgrader.trusted``)
# starts without nbgrader/nbformat/jsonschema (about 0.3 s instead of 3.4 s on 2 cores).
_LAZY = {"CONFIG_FILE": "course", "ROOT": "course", "Course": "course",
         "course_config": "course", "AutogradeExecute": "execute",
         "ClearSolutionsById": "release", "FlagForReview": "pipeline",
         "ShortTestErrors": "pipeline", "TrustedChecks": "pipeline",
         "autograde_preprocessors": "pipeline", "generate_assignment_preprocessors": "release",
         "sanitize_preprocessors": "pipeline"}

__all__ = sorted(_LAZY) + ["main"]


def __getattr__(name):
    if name in _LAZY:
        return getattr(import_module(f".{_LAZY[name]}", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] in (["bench"], ["pack"]):
        return int(import_module(f".{argv[0]}", __name__).main(argv[1:]) or 0)
    p = argparse.ArgumentParser(prog="labgrader",
                                description="trainers' grading loop on nbgrader (see docs/trainers.md)")
    sub = p.add_subparsers(dest="cmd", required=True)
    sub.add_parser("bench", help="how long grading a class takes, sandbox on and off (JSON; "
                   "labgrader bench --help)", add_help=False)
    sub.add_parser("pack", help="the student pack: build/<name>-<version>.tar.gz (release, data, "
                   "the students' wheel, pins, setup.sh)", add_help=False)
    r = sub.add_parser("release", help="regenerate notebooks/ from solutions/ (all, or the named)")
    r.add_argument("assignments", nargs="*")
    c = sub.add_parser("collect", help="import a folder <student>/<assignment>/<nb>.ipynb or an LMS zip")
    c.add_argument("source", type=Path)
    c.add_argument("--assignment", help="the assignment a zip holds (guessed when unique)")
    c.add_argument("--regexp", help="nbgrader FileNameCollectorPlugin.named_regexp for a zip")
    g = sub.add_parser("autograde", help="autograde autograde/submitted (in parallel with --jobs)")
    g.add_argument("assignment", nargs="?")
    g.add_argument("--jobs", "-j", type=int, default=1,
                   help="submissions graded at once, each in its own process (default 1)")
    g.add_argument("--student", action="append", dest="students", help="only these (repeat)")
    g.add_argument("--force", action="store_true",
                   help="grade every submission again (default: only those not graded yet, "
                   "e.g. after Ctrl-C)")
    g.add_argument("--submission-timeout", type=float, default=parallel.SUBMISSION_TIMEOUT_S,
                   help="with --jobs: seconds before one submission is given up (default %(default)g)")
    g.add_argument("--sandbox", choices=("auto", "namespaces", "plain", "off"), default="auto",
                   help="how student code runs: auto = namespaces and a grading user as root, "
                   "else plain (rlimits; a warning); off = as you (default %(default)s)")
    sub.add_parser("feedback", help="feedback HTML for autograded work").add_argument(
        "assignment", nargs="?")
    e = sub.add_parser("export", help="export grades to autograde/grades.csv")
    e.add_argument("--to", type=Path, help="CSV path (default autograde/grades.csv)")
    lb = sub.add_parser("leaderboard", help="notebook 09's challenge standings from the gradebook: "
                        "printed, and autograde/leaderboard.csv and .html")
    lb.add_argument("--alias", action="store_true", help="show students by alias, not id")
    lb.add_argument("--out", type=Path, help="folder for the CSV and HTML (default autograde/)")
    args = p.parse_args(argv)

    from .course import Course, course_config
    sandbox = getattr(args, "sandbox", "auto")
    course = Course(course_config(**{"Sandbox.mode": sandbox}) if sandbox != "auto" else None)
    try:
        if args.cmd == "release":
            unknown = set(args.assignments) - set(course.assignments())
            if unknown:
                p.error(f"unknown assignment(s) {sorted(unknown)}; "
                        f"allowed: {course.assignments()}")
            return 0 if course.release(args.assignments) else 1
        if args.cmd == "collect":
            return 0 if course.collect(args.source, args.assignment, args.regexp) else 1
        if args.cmd == "autograde":
            try:
                parallel.check_jobs(args.jobs)
            except ValueError as err:
                p.error(str(err))
            if args.submission_timeout <= 0:
                p.error(f"--submission-timeout must be > 0 s (got {args.submission_timeout:g})")
            if args.assignment and args.assignment not in course.assignments():
                p.error(f"unknown assignment {args.assignment!r}; allowed: {course.assignments()}")
            from .seed import grader_env
            grader_env()  # this run's secret, before any --jobs worker starts: one for all
            if args.jobs == 1:
                return 0 if course.autograde(args.assignment, args.students, args.force) else 1
            return 0 if parallel.autograde(course, args.assignment, args.students, jobs=args.jobs,
                                           submission_timeout_s=args.submission_timeout,
                                           force=args.force) else 1
        if args.cmd == "feedback":
            return 0 if course.feedback(args.assignment) else 1
        if args.cmd == "leaderboard":
            from . import leaderboard
            leaderboard.main(course.coursedir.db_url, args.out or course.coursedir.root
                             / "autograde", aliases=args.alias)
            return 0
        course.export(args.to)
        return 0
    except ValueError as err:
        print(err, file=sys.stderr)
        return 2
    except KeyboardInterrupt:  # what was graded is saved whole (Course.is_graded)
        print("interrupted: run the same command again to grade what is left", file=sys.stderr)
        return 130
