"""A trainer and three students on a real JupyterHub, through nbgrader's exchange.

Real parts: JupyterHub 6 with configurable-http-proxy, four Unix users made by
``hub/course.py``, each student's own Jupyter server spawned by the hub as that user;
students fetch, save, submit and fetch feedback through their server's nbgrader API;
the trainer runs nbgrader's CLI as the trainer user (its autograde runs the grading
sandbox's plain mode: the trainer is not root); then the admin grades again as root with
``hub/course.py autograde`` (namespaces mode), to the same scores, and hands the course
back to the trainer. Then, as a student: the others' work, the sources and the gradebook
are out of reach. Skips without root or the extra
(``make hub-install``). About a minute on 2 cores.
"""
from __future__ import annotations

import json
import os
import re
import secrets
import subprocess
import tempfile
import time
from pathlib import Path

import pytest

from hubkit import (COURSE_PY, HUB_BIN, REPO, Hub, as_user, free_port_block, missing, nbgrader,
                    protected_paths)

pytestmark = [pytest.mark.slow, pytest.mark.skipif(missing() is not None,
                                                   reason=f"hub walk-through: {missing()}")]

ASSIGNMENT = "08_knowledge_check"  # the shortest notebook to autograde (~4 s)
COURSE = "dynbatch"
TRAINER, STUDENTS = "lhtrainer", ["lhstudent1", "lhstudent2", "lhstudent3"]
# how many of the solution's answers each student puts in: none, all, the first five
ANSWERS = {"lhstudent1": 0, "lhstudent2": None, "lhstudent3": 5}


def solution_answers() -> list[tuple[str, str]]:
    nb = json.loads((REPO / "solutions" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb").read_text())
    return [(c["metadata"]["nbgrader"]["grade_id"], "".join(c["source"]))
            for c in nb["cells"] if c["cell_type"] == "code"
            and c["metadata"].get("nbgrader", {}).get("solution")]


def answer_points(nb_cells: list[tuple[str, str]]) -> dict[str, float]:
    """grade_id of an answer → points of its test cell (``<id>_test``)."""
    nb = json.loads((REPO / "solutions" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb").read_text())
    pts = {c["metadata"]["nbgrader"]["grade_id"]: c["metadata"]["nbgrader"].get("points", 0)
           for c in nb["cells"] if c["metadata"].get("nbgrader", {}).get("grade")}
    return {gid: float(pts.get(f"{gid}_test", 0)) for gid, _ in nb_cells}


@pytest.fixture(scope="module")
def walk():
    root = Path(tempfile.mkdtemp(prefix="labhub-", dir="/tmp"))
    os.chmod(root, 0o755)
    port, token = free_port_block(3), secrets.token_hex(16)
    env = {**os.environ, "LABHUB_ROOT": str(root), "LABHUB_PORT": str(port),
           "LABHUB_USERS": ",".join([TRAINER, *STUDENTS]), "LABHUB_COURSE": COURSE,
           "LABHUB_PASSWORD": secrets.token_hex(8), "LABHUB_ADMIN_TOKEN": token}
    course_cmd = [str(HUB_BIN / "python"), str(COURSE_PY)]
    modes = {p: p.stat().st_mode & 0o777 for p in protected_paths()}
    subprocess.run([*course_cmd, "setup", "--protect-repo"], env=env, check=True)
    hub = Hub(env, token, root / "hub.log")
    try:
        hub.wait_ready()
        yield run_course(hub, root, env)
    finally:
        hub.stop()
        for path, mode in modes.items():
            os.chmod(path, mode)
        subprocess.run([*course_cmd, "teardown"], env=env, check=False)


def run_course(hub: Hub, root: Path, env: dict) -> dict:
    """release → fetch → submit → collect → autograde → feedback → fetch_feedback."""
    out: dict = {"root": root, "hub": hub, "env": env}
    t0 = time.perf_counter()
    mark = lambda step: print(f"hub walk: {step} at {time.perf_counter() - t0:.1f} s")  # noqa: E731
    nbgrader(TRAINER, "generate_assignment", ASSIGNMENT, "--force")
    nbgrader(TRAINER, "release_assignment", ASSIGNMENT, "--force")
    mark("released")
    hub.start_servers([TRAINER, *STUDENTS])
    mark("servers up")
    answers = solution_answers()
    for user in STUDENTS:
        listed = api(hub, user, "get", "assignments", params={"course_id": COURSE})
        assert [a["assignment_id"] for a in listed["value"]] == [ASSIGNMENT], listed
        api(hub, user, "post", "assignments/fetch", data=form())
        nb_path = f"api/contents/{ASSIGNMENT}/{ASSIGNMENT}.ipynb"
        model = api(hub, user, "get", nb_path)
        chosen = dict(answers[:ANSWERS[user]] if ANSWERS[user] is not None else answers)
        for cell in model["content"]["cells"]:
            gid = cell["metadata"].get("nbgrader", {}).get("grade_id")
            if gid in chosen:
                cell["source"] = chosen[gid]
        api(hub, user, "put", nb_path, json={"type": "notebook", "format": "json",
                                              "content": model["content"]})
        api(hub, user, "post", "assignments/submit", data=form())
    mark("submitted")
    nbgrader(TRAINER, "collect", ASSIGNMENT)
    nbgrader(TRAINER, "autograde", ASSIGNMENT, "--force")
    out["trainer_scores"] = gradebook_scores()
    admin = subprocess.run([str(HUB_BIN / "python"), str(COURSE_PY), "autograde", ASSIGNMENT],
                           env=env, capture_output=True, text=True, timeout=600)
    assert admin.returncode == 0, admin.stdout[-2000:] + admin.stderr[-2000:]
    out["admin"] = admin.stdout
    mark("autograded (trainer, then admin)")
    nbgrader(TRAINER, "generate_feedback", ASSIGNMENT, "--force")
    nbgrader(TRAINER, "release_feedback", ASSIGNMENT)
    for user in STUDENTS:
        api(hub, user, "post", "assignments/fetch_feedback", data=form())
    mark("feedback fetched")
    pts = answer_points(answers)
    out["expected"] = {u: sum(pts[g] for g, _ in (answers[:n] if n is not None else answers))
                       for u, n in ANSWERS.items()}
    fg = hub.http.get(f"/user/{TRAINER}/formgrader", follow_redirects=True)
    out["formgrader"] = (fg.status_code, str(fg.url), fg.headers.get("content-security-policy"))
    return out


def form() -> dict:
    return {"assignment_id": ASSIGNMENT, "course_id": COURSE}


def api(hub: Hub, user: str, method: str, path: str, **kw):
    """Call ``user``'s own Jupyter server through the hub's proxy (the admin service token)."""
    r = getattr(hub.http, method)(f"/user/{user}/{path}", **kw)
    assert r.status_code < 300, f"{method} {path} as {user}: {r.status_code} {r.text[:500]}"
    return r.json() if r.content else None


def gradebook_scores() -> dict[str, float]:
    from nbgrader.api import Gradebook
    with Gradebook(f"sqlite:////home/{TRAINER}/course/gradebook.db") as gb:
        return {s: gb.find_submission(ASSIGNMENT, s).score for s in STUDENTS}


def test_every_student_is_graded_by_what_they_wrote(walk):
    scores = gradebook_scores()
    assert walk["expected"]["lhstudent2"] > walk["expected"]["lhstudent3"] > 0
    assert scores == pytest.approx(walk["expected"]), scores


def test_admin_grades_in_namespaces_and_hands_the_course_back(walk):
    assert "sandbox: namespaces" in walk["admin"], walk["admin"]
    assert gradebook_scores() == pytest.approx(walk["trainer_scores"])
    course = Path(f"/home/{TRAINER}/course")
    trainer_uid = course.stat().st_uid
    owners = {p.stat().st_uid for p in [course / "gradebook.db", *course.rglob("autograded/**/*")]}
    assert owners == {trainer_uid}, owners


def test_each_student_fetched_their_own_feedback(walk):
    for user in STUDENTS:
        files = list(Path(f"/home/{user}/{ASSIGNMENT}/feedback").glob(f"*/{ASSIGNMENT}.html"))
        assert len(files) == 1, (user, files)
        html = files[0].read_text()
        m = re.search(r"Score:\s*([\d.]+)\s*/\s*([\d.]+)", html)
        assert m and float(m.group(1)) == pytest.approx(walk["expected"][user]), (user, m)
        assert files[0].stat().st_uid == Path(f"/home/{user}").stat().st_uid


def test_the_trainer_has_the_formgrader_under_the_hub(walk):
    status, url, csp = walk["formgrader"]
    assert status == 200 and f"/user/{TRAINER}/formgrader" in url, walk["formgrader"]
    print("formgrader CSP under the hub:", csp)


def test_students_cannot_read_each_other_the_sources_or_the_gradebook(walk):
    me, other = STUDENTS[2], STUDENTS[0]
    exchange = walk["root"] / "exchange" / COURSE
    course = Path(f"/home/{TRAINER}/course")
    mine = f"/home/{me}/{ASSIGNMENT}/{ASSIGNMENT}.ipynb"
    assert as_user(me, "cat", mine).returncode == 0  # the control: reading works at all
    assert as_user(me, "ls", str(exchange / "outbound")).returncode == 0
    inbound = sorted(os.listdir(exchange / "inbound"))
    assert len(inbound) == len(STUDENTS)
    theirs = next(d for d in inbound if d.startswith(f"{other}+"))
    blocked = {
        "list the exchange's submissions": ["ls", str(exchange / "inbound")],
        "list the exchange's feedback": ["ls", str(exchange / "feedback")],
        "guess a submission without its random suffix": [
            "cat", str(exchange / "inbound" / theirs.rsplit("+", 1)[0] / f"{ASSIGNMENT}.ipynb")],
        "read another student's notebook": ["cat", f"/home/{other}/{ASSIGNMENT}/{ASSIGNMENT}.ipynb"],
        "list another student's home": ["ls", f"/home/{other}"],
        "read the course's source notebook": [
            "cat", str(course / "solutions" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb")],
        "read the gradebook": ["cat", str(course / "gradebook.db")],
        "list the collected submissions": ["ls", str(course / "submitted")],
        "read the lab clone's solutions": [
            "cat", str(REPO / "solutions" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb")],
    }
    for what, cmd in blocked.items():
        r = as_user(me, *cmd)
        assert r.returncode != 0, f"a student could {what}: {r.stdout[:200]}"
        assert "Permission denied" in r.stderr or "No such file" in r.stderr, (what, r.stderr)


def test_only_listed_users_log_in_and_only_with_the_password(walk):
    import httpx
    with httpx.Client(base_url=walk["hub"].url) as c:
        page = c.get("/hub/login")
        xsrf = c.cookies.get("_xsrf") or re.search(r'name="_xsrf" value="([^"]+)"', page.text)[1]

        def login(user, password):
            return c.post("/hub/login", data={"username": user, "password": password,
                                              "_xsrf": xsrf}).status_code
        assert login(STUDENTS[0], "wrong") == 403
        assert login("root", walk["env"]["LABHUB_PASSWORD"]) == 403
        assert login(STUDENTS[0], walk["env"]["LABHUB_PASSWORD"]) == 302
