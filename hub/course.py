"""Set up (or remove) the lab's course on one machine, for JupyterHub. Run as root.

``python hub/course.py setup`` creates:

- one Unix user per name in ``LABHUB_USERS`` (the first is the trainer), homes mode 0700;
- the nbgrader exchange ``$LABHUB_ROOT/exchange``: root-owned, mode 0777 as nbgrader
  requires; the course folder inside is the trainer's, and its ``inbound/`` (0733 + setgid,
  made by nbgrader) lets students drop submissions they cannot list;
- the trainer's course ``~trainer/course`` (0700): a copy of ``solutions/`` and of the
  grader-only ``keys/`` (the answer key), the gradebook and submissions appear there; its
  nbgrader config loads the lab's ``autograde/nbgrader_config.py`` (same preprocessors,
  same timeout) then points at it;
- each student's ``~/.jupyter/nbgrader_config.py``: the course id and the exchange;
- with ``--protect-repo``: this clone's ``solutions/``, ``keys/``, ``tests/``, its git
  folder (the history holds every file) and local grading folders become 0700, since
  students' kernels read the lab package and ``data/`` from it.

``python hub/course.py autograde ASSIGNMENT [--jobs N]`` grades the trainer's collected
submissions with full isolation (the grading sandbox's namespaces mode, which needs root):
it builds the course's config from the lab's own config (nothing the trainer can edit runs
as root), grades through ``labgrader`` (the trainers' package) like ``labgrader autograde`` (flags
printed per student) and hands the course folder back to the trainer.

``python hub/course.py teardown`` removes the users this script made (``userdel -r``)
and ``$LABHUB_ROOT``.
"""
from __future__ import annotations

import argparse
import os
import pwd
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
MARK = "labhub"  # the GECOS field of users this script created: teardown removes only those
COURSE_ID = "dynbatch"


def settings() -> dict:
    users = [u for u in os.environ.get("LABHUB_USERS", "trainer,student1,student2,student3")
             .split(",") if u]
    if len(users) < 2:
        raise SystemExit("LABHUB_USERS must name the trainer and at least one student")
    return {"root": Path(os.environ.get("LABHUB_ROOT", "/srv/labhub")), "users": users,
            "course_id": os.environ.get("LABHUB_COURSE", COURSE_ID)}


def home(user: str) -> Path:
    return Path(pwd.getpwnam(user).pw_dir)


def ensure_user(user: str) -> None:
    try:
        pwd.getpwnam(user)
    except KeyError:
        subprocess.run(["useradd", "--create-home", "--shell", "/bin/bash",
                        "--comment", MARK, user], check=True)
    os.chmod(home(user), 0o700)


def write_owned(path: Path, text: str, user: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    for p in (path.parent, path):
        shutil.chown(p, user, user)


def course_settings(course: Path, exchange: Path, course_id: str) -> dict[str, str]:
    """``Class.trait`` -> value: the lab's course config moved into the trainer's ``course``."""
    return {"CourseDirectory.root": str(course),
            "CourseDirectory.submitted_directory": "submitted",
            "CourseDirectory.autograded_directory": "autograded",
            "CourseDirectory.feedback_directory": "feedback",
            "CourseDirectory.db_url": f"sqlite:///{course / 'gradebook.db'}",
            "CourseDirectory.course_id": course_id,
            "Exchange.root": str(exchange)}


def trainer_config(course: Path, exchange: Path, course_id: str) -> str:
    return (f"# written by hub/course.py: the lab's course config, moved into {course}\n"
            "c = get_config()  # noqa: F821\n"
            f"load_subconfig({str(REPO / 'autograde' / 'nbgrader_config.py')!r})  # noqa: F821\n"
            + "".join(f"c.{key} = {value!r}\n"
                      for key, value in course_settings(course, exchange, course_id).items()))


def student_config(exchange: Path, course_id: str) -> str:
    return ("c = get_config()  # noqa: F821\n"
            f"c.CourseDirectory.course_id = {course_id!r}\n"
            f"c.Exchange.root = {str(exchange)!r}\n")


def git_dir() -> Path | None:
    """This clone's git folder (a worktree's shared one too): its history holds every file."""
    try:
        out = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--git-common-dir"],
                             capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        out = None
    if out is not None and out.returncode == 0 and out.stdout.strip():
        return (REPO / out.stdout.strip()).resolve()
    return REPO / ".git" if (REPO / ".git").is_dir() else None


def protected_paths() -> list[Path]:
    """What students must not read in this clone: the sources, the grader-only material,
    the git history, the test variants and any local grading (the trainer still reads
    ``autograde/nbgrader_config.py``)."""
    names = ("solutions", "keys", "tests", "autograde/submitted", "autograde/autograded",
             "autograde/feedback", "autograde/gradebook.db", "autograde/grades.csv")
    git = git_dir()
    return [REPO / n for n in names if (REPO / n).exists()] + ([git] if git else [])


def setup(protect_repo: bool) -> None:
    s = settings()
    root, (trainer, *students), course_id = s["root"], s["users"], s["course_id"]
    root.mkdir(parents=True, exist_ok=True)
    os.chmod(root, 0o755)
    exchange = root / "exchange"
    exchange.mkdir(exist_ok=True)
    os.chmod(exchange, 0o777)  # nbgrader checks for exactly this on the exchange root
    for user in s["users"]:
        ensure_user(user)
    course = home(trainer) / "course"
    for folder in ("solutions", "keys"):  # the source and the answer key: the trainer's only
        if not (course / folder).exists() and (REPO / folder).exists():
            shutil.copytree(REPO / folder, course / folder)
    subprocess.run(["chown", "-R", f"{trainer}:{trainer}", str(course)], check=True)
    os.chmod(course, 0o700)
    write_owned(home(trainer) / ".jupyter" / "nbgrader_config.py",
                trainer_config(course, exchange, course_id), trainer)
    for user in students:
        write_owned(home(user) / ".jupyter" / "nbgrader_config.py",
                    student_config(exchange, course_id), user)
    if protect_repo:
        for path in protected_paths():
            os.chmod(path, 0o700 if path.is_dir() else 0o600)
    print(f"course {course_id!r}: trainer {trainer} ({course}), students {', '.join(students)}, "
          f"exchange {exchange}")


def linked(folder: Path) -> list[Path]:
    """Symbolic links under ``folder``: root must not write through them."""
    out = []
    for top, dirs, files in os.walk(folder):
        out += [Path(top) / n for n in dirs + files if (Path(top) / n).is_symlink()]
    return out


def autograde(assignment: str, jobs: int) -> int:
    """Grade the trainer's submissions of ``assignment`` in the sandbox, as root; 0 when all
    were graded."""
    s = settings()
    trainer = s["users"][0]
    course = home(trainer) / "course"
    if linked(course):
        print(f"hub/course.py: refusing to grade: links in {course}: {linked(course)[:3]}",
              file=sys.stderr)
        return 2
    sys.path.insert(0, str(REPO))
    from labgrader import Course, course_config, parallel
    settings_ = course_settings(course, s["root"] / "exchange", s["course_id"])
    grader = Course(course_config(course, **settings_, **{"Sandbox.mode": "namespaces"}))
    try:
        if jobs > 1:
            ok = parallel.autograde(grader, assignment, jobs=jobs)
        else:
            ok = grader.autograde(assignment)
    finally:
        subprocess.run(["chown", "-R", f"{trainer}:{trainer}", str(course)], check=True)
    return 0 if ok else 1


def teardown() -> None:
    s = settings()
    for user in s["users"]:
        try:
            entry = pwd.getpwnam(user)
        except KeyError:
            continue
        if entry.pw_gecos == MARK:
            subprocess.run(["userdel", "--remove", user], check=False,
                           stderr=subprocess.DEVNULL)
    shutil.rmtree(s["root"], ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="hub/course.py", description=__doc__.split("\n\n")[0])
    p.add_argument("action", choices=("setup", "autograde", "teardown"))
    p.add_argument("assignment", nargs="?", help="autograde: the assignment to grade")
    p.add_argument("--protect-repo", action="store_true",
                   help="chmod 0700 this clone's solutions/, keys/, tests/, git folder "
                        "and grading folders")
    p.add_argument("--jobs", type=int, default=1, help="autograde: submissions at once")
    args = p.parse_args(argv)
    if args.action == "autograde" and not args.assignment:
        p.error("autograde needs the assignment to grade")
    if args.jobs < 1:
        p.error(f"--jobs must be at least 1 (got {args.jobs})")
    if os.geteuid() != 0:
        print("hub/course.py: run as root (it creates Unix users and the exchange)",
              file=sys.stderr)
        return 2
    if args.action == "autograde":
        return autograde(args.assignment, args.jobs)
    setup(args.protect_repo) if args.action == "setup" else teardown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
